package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// Tests of spec §4.3: over stdio, every request read is answered, and an
// id is answered as it was sent.

// TestStdioRequestWithIDInFlightIsRefused: a request whose id is that of
// a request not yet answered gets Invalid Request (−32600) under that id,
// and the request in flight is answered too; the session then ends
// cleanly at the end of input, nothing owed.
func TestStdioRequestWithIDInFlightIsRefused(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := newMCPServer(embeddedTool(), slog.New(slog.DiscardHandler), nil, func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	send, lines, done := stdioSession(t, srv)
	send(stdioInit)
	nextLine(t, lines)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := string(mcpCallBody(t, 7, MCPToolName))
	send(call) // held in its handler until release
	send(call)
	send(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	var got []string
	for {
		l := nextLine(t, lines)
		if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":"last"`) {
			break
		}
		got = append(got, l)
	}
	close(release)
	got = append(got, nextLine(t, lines))
	send("")
	if err := <-done; err != nil && err.Error() != "EOF" {
		t.Errorf("the session ended with %v", err)
	}
	var refused, answered int
	for _, l := range got {
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || string(m.ID) != "7" {
			t.Errorf("unexpected line %.300s", l)
			continue
		}
		switch {
		case m.Error != nil && m.Error.Code == -32600 && strings.Contains(m.Error.Message, "already used by a request not yet answered"):
			refused++
		case m.Result != nil && strings.Contains(string(m.Result), `\"valid\":true`):
			answered++
		default:
			t.Errorf("unexpected answer %.300s", l)
		}
	}
	if refused != 1 || answered != 1 {
		t.Errorf("%d refused, %d answered, want 1 and 1: %q", refused, answered, got)
	}
}

// TestStdioIDsTheSDKWouldChangeAreRefused: a string id the SDK would
// answer changed (an unpaired surrogate escape, invalid UTF-8: both would
// come back as U+FFFD, and collide) is Invalid Request with a null id, as
// a number it would round is; a valid id is answered as sent.
func TestStdioIDsTheSDKWouldChangeAreRefused(t *testing.T) {
	t.Parallel()
	send, lines, _ := stdioSession(t, NewMCPServer())
	send(stdioInit)
	nextLine(t, lines)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		id, want string
	}{
		{`"\ud800"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"\"\xff\"", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`"a\udc00b"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`1.5`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`"\ud83d\ude00"`, `{"jsonrpc":"2.0","id":"😀","result":{}}`},
		{`"é"`, `{"jsonrpc":"2.0","id":"é","result":{}}`},
	} {
		send(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`)
		if l := nextLine(t, lines); !strings.HasPrefix(l, tc.want) {
			t.Errorf("id %s: answered %.300s, want %s…", tc.id, l, tc.want)
		}
	}
}
