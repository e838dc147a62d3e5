package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestIDHeader carries a request's id to the MCP middleware: on /mcp,
// the id the access log gives the HTTP request; over stdio, the JSON-RPC
// id. The SDK hands a handler the request's headers (RequestExtra) and
// nothing else of its transport, so both transports put it there.
const requestIDHeader = "X-Request-Id"

// requestID is the id of an MCP request, or "" if its transport gave none.
func requestID(req mcp.Request) string {
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		return ex.Header.Get(requestIDHeader)
	}
	return ""
}

// guard is the receiving middleware of every MCP server citecheck runs.
//
// A panic in any method's work fails that request alone: the SDK runs a
// handler in a goroutine of its own, where a panic would end the process,
// so the recover is here, in that goroutine. A tool call answers a tool
// error carrying {"error": {"code": "internal", …}} naming the request id,
// counted by onCall; any other method, the JSON-RPC internal error. The
// panic and its stack go to log with the request id.
//
// A tool call whose context ended (its client cancelled it, or, over
// HTTP, went away) answers the small stopped error in place of whatever
// its handler built, so that no answer is encoded for nobody.
func guard(log *slog.Logger, onCall func(outcome string)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				id := requestID(req)
				log.Error("panic serving an MCP request", "request_id", id, "method", method,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				e := internalError(id)
				noteHTTPOutcome(ctx, e.Code)
				if method != "tools/call" {
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Message}
					return
				}
				if onCall != nil {
					onCall(e.Code)
				}
				res, err = toolResult(errorEnvelope(e), true), nil
			}()
			res, err = next(ctx, method, req)
			if err != nil {
				err = plainRPCError(err)
			}
			if method == "tools/call" && err == nil {
				if e := stopped(callDone(ctx)); e != nil {
					res = toolResult(errorEnvelope(e), true)
				}
			}
			return res, err
		}
	}
}

// callDone is the context whose end stops a call: the request's over
// HTTP (the client went away), else the SDK's (the client cancelled).
func callDone(ctx context.Context) context.Context {
	if rc, ok := ctx.Value(requestContextKey{}).(context.Context); ok && rc.Err() != nil {
		return rc
	}
	return ctx
}

// internalError is the error a request that panicked answers: nothing of
// the panic, which is for the log, only the id that finds it there.
func internalError(id string) *citecheck.Error {
	msg := "internal error; it is logged"
	if id != "" {
		msg = "internal error; it is logged as request " + id
	}
	return &citecheck.Error{Code: citecheck.CodeInternal, Message: msg}
}

// errorEnvelope is {"error": e}.
func errorEnvelope(e *citecheck.Error) []byte {
	return citecheck.AppendEnvelope(nil, nil, e)
}

// noteHTTPOutcome sets the outcome of the HTTP request an /mcp call
// arrived in, for its access log line and metrics; a no-op over stdio.
func noteHTTPOutcome(ctx context.Context, outcome string) {
	if rc, ok := ctx.Value(requestContextKey{}).(context.Context); ok {
		if rec, ok := rc.Value(recordKey{}).(*record); ok {
			rec.outcome = outcome
		}
	}
}
