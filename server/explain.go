package server

import (
	"net/http"

	"github.com/citecheck/citecheck"
)

// serveExplain is POST /v1/tools/{id}/versions/{version}/explain, beyond the
// contract (spec §5): the same body as execute, answered with what
// `citecheck run --explain` prints, {"all": …} with every citation's
// findings and fix, or the same {"error": …} with the same status. Like
// execute, it runs with the request's context.
func (s *Server) serveExplain(w http.ResponseWriter, r *http.Request) {
	s.serveBody(w, r, explainCostFactor, func(body []byte) (int, []byte) {
		ex, e := citecheck.RunExplainContext(r.Context(), body)
		setOutcome(r, explainOutcome(ex, citecheck.AsError(e)))
		return answerStatus(citecheck.AsError(e)), citecheck.AppendExplainEnvelope(nil, ex, e)
	})
}

// explainOutcome is the metrics outcome of an explain call: valid, failed
// or the error code, as for execute.
func explainOutcome(ex *citecheck.Explanation, e *citecheck.Error) string {
	switch {
	case e != nil:
		return e.Code
	case ex.All.Valid:
		return outcomeValid
	}
	return outcomeFailed
}

// explainPath is the explain route of tool t on this server.
func (t *toolInfo) explainPath() string { return t.contractPath() + "/explain" }
