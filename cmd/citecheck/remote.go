package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/citecheck/citecheck"
)

// runRemote sends the call to a running service and prints its answer as
// the in-process run would: same bytes, same exit status. A service that
// cannot be reached, breaks off its answer, or answers something other
// than an envelope (another server at that URL, a proxy's error page) is
// unavailable (spec §4.4): the trouble is on the way or at the far end,
// not in the request nor in this command.
func runRemote(ctx context.Context, baseURL, id, version string, body []byte, stdout, stderr io.Writer) int {
	url := strings.TrimRight(baseURL, "/") + "/v1/tools/" + id + "/versions/" + version + "/execute"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return report(stdout, stderr, nil, &citecheck.Error{Code: citecheck.CodeUsage, Message: "bad --base-url: " + err.Error()})
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return report(stdout, stderr, nil, &citecheck.Error{Code: citecheck.CodeUnavailable, Message: "cannot reach the service at --base-url: " + err.Error()})
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return report(stdout, stderr, nil, &citecheck.Error{Code: citecheck.CodeUnavailable, Message: "reading the service's answer: " + err.Error()})
	}
	var env struct {
		Result *struct {
			Valid            bool    `json:"valid"`
			Reason           *string `json:"reason"`
			FirstDiscrepancy *struct {
				CitationIndex int    `json:"citation_index"`
				CitationID    string `json:"citation_id"`
			} `json:"first_discrepancy"`
		} `json:"result"`
		Error *citecheck.Error `json:"error"`
	}
	err = json.Unmarshal(raw, &env)
	if err == nil && (env.Result == nil) == (env.Error == nil) {
		err = errors.New("neither a result nor an error")
	}
	var res *citecheck.Result
	if r := env.Result; err == nil && r != nil {
		// Just what exitStatus needs, from the service's JSON.
		res = &citecheck.Result{Valid: r.Valid}
		if !r.Valid {
			var ok bool
			if r.Reason != nil {
				res.Reason, ok = citecheck.ParseReason(*r.Reason)
			}
			if !ok || r.FirstDiscrepancy == nil {
				err = errors.New("a failed result without a known reason and first_discrepancy")
			} else {
				res.FirstDiscrepancy = &citecheck.Discrepancy{CitationIndex: r.FirstDiscrepancy.CitationIndex, CitationID: r.FirstDiscrepancy.CitationID}
			}
		}
	}
	if err != nil {
		return report(stdout, stderr, nil, &citecheck.Error{Code: citecheck.CodeUnavailable,
			Message: fmt.Sprintf("the service answered %s with something else than an envelope: %v", resp.Status, err)})
	}
	stdout.Write(append(bytes.TrimRight(raw, "\n"), '\n'))
	return exitStatus(res, env.Error, stderr)
}
