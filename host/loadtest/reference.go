package loadtest

// OperationInfo describes a registered operation for a reference.
type OperationInfo struct {
	Name     string
	Requests int
	Doc      string
}

// AreaOperations lists the operations the named area registered
// (RegisterArea, RegisterOperation), in the order it gave them: for the
// area's own generated reference (host/cli's AreaReference).
func AreaOperations(area string) []OperationInfo {
	ar := areas[area]
	if ar == nil {
		return nil
	}
	out := make([]OperationInfo, len(ar.Operations))
	for i, op := range ar.Operations {
		out[i] = OperationInfo{Name: op.Name, Requests: op.Requests, Doc: op.Doc}
	}
	return out
}

// OperationArea names the area that registered the operation, "" for the
// load tester's own operations (documented in docs/loadtest.md).
func OperationArea(op string) string { return areaOf[op] }
