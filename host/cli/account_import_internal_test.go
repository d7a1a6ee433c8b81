package cli

func init() { sampleArgs["account import"] = []string{"accounts.jsonl", "--batch", "500"} }
