package guides

// The area's route on the operator API (area.Live.API), behind the API's
// token check: the load tester's consistency check reads the counts
// through it.

// PathOperatorAPI is the operator API's guides route: GET [?hero=H], every
// stored guide (hidden ones included) with its full counts, []APIGuide in
// gid order.
const PathOperatorAPI = "/operator/v1/guides"

// APIGuide is one guide with its counts as the operator API shows it:
// imported plus players'.
type APIGuide struct {
	Gid         uint32 `json:"gid"`
	Hero        string `json:"hero"`
	Name        string `json:"name"`
	Hidden      bool   `json:"hidden"`
	Up          uint32 `json:"up"`
	Down        uint32 `json:"down"`
	PlayersUp   uint32 `json:"players_up"`
	PlayersDown uint32 `json:"players_down"`
}
