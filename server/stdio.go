package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxStdioLine bounds one message on stdio, as maxMCPBody bounds one on
// /mcp: a longer line is answered with an error and skipped, never held.
const maxStdioLine = maxMCPBody

// drainTimeout bounds how long the stdio server, at the end of its input,
// waits for the answers it owes (a check takes well under a second).
const drainTimeout = 30 * time.Second

// NewStdioTransport is the MCP transport `citecheck mcp` runs on: one
// JSON-RPC message per line in, one per line out, nothing else on out.
// Unlike the SDK's IOTransport it answers every request it has read before
// it reports the end of its input (the SDK cancels what is in flight at
// EOF, so a client that writes its calls and closes would lose them); it
// answers a line that is not a JSON-RPC message (−32700 parse error, or
// −32600) and goes on, where the SDK ends the session; and it refuses
// batches and ids the SDK would answer changed (see vetMessage). A
// request the client cancels (notifications/cancelled) stops, through
// the SDK, and its response is not written: MCP asks a receiver not to
// answer a cancelled request, and the SDK answers it anyway.
func NewStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &stdioTransport{in: in, out: out}
}

type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		out:      t.out,
		incoming: make(chan jsonrpc.Message),
		answered: make(chan struct{}, 1),
		closed:   make(chan struct{}),
		owed:     make(map[jsonrpc.ID]int),
		dropped:  make(map[jsonrpc.ID]bool),
	}
	go c.readLoop(bufio.NewReaderSize(t.in, 64<<10))
	return c, nil
}

type stdioConn struct {
	out     io.Writer
	writeMu sync.Mutex

	incoming chan jsonrpc.Message // closed at the end of input
	answered chan struct{}        // a response was written (capacity 1: a wake-up)
	closed   chan struct{}
	once     sync.Once

	mu      sync.Mutex
	owed    map[jsonrpc.ID]int  // requests read and not yet answered, by id
	dropped map[jsonrpc.ID]bool // owed requests the client cancelled: their responses are not written
}

// readLoop reads lines until the end of input, answering the ones that are
// not messages itself and passing the rest to Read.
func (c *stdioConn) readLoop(in *bufio.Reader) {
	defer close(c.incoming)
	for {
		line, tooLong, err := readLine(in, maxStdioLine)
		if tooLong {
			c.writeLine(rpcError(&rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: the message is over " + itoa(maxStdioLine) + " bytes"}))
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.take(line)
		}
		if err != nil {
			return // io.EOF, or stdin failed: either way, the end of input
		}
	}
}

func (c *stdioConn) take(line []byte) {
	if p := vetMessage(line); p != nil {
		c.writeLine(rpcError(p))
		return
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeLine(rpcError(&rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: the message is not a JSON-RPC request, notification or response"}))
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		// The JSON-RPC id is this request's id in the log (see guard).
		id, _ := json.Marshal(req.ID.Raw())
		req.Extra = &mcp.RequestExtra{Header: http.Header{requestIDHeader: {string(id)}}}
		c.mu.Lock()
		busy := c.owed[req.ID] > 0
		if !busy {
			c.owed[req.ID]++
		}
		c.mu.Unlock()
		if busy {
			// The SDK keeps one request per id: a second one in flight
			// would replace the first and one of the two go unanswered.
			c.writeLine(rpcErrorFor(id, &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: id " +
				citecheck.Echo(string(id)).String() + " is already used by a request not yet answered; give each request in flight an id of its own"}))
			return
		}
	} else if ok && req.Method == "notifications/cancelled" {
		c.cancelled(req.Params)
	}
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
}

// cancelled marks the request a notifications/cancelled names, if it is
// owed, so that its response is dropped. The notification still goes to
// the SDK, which cancels the request's context.
func (c *stdioConn) cancelled(params json.RawMessage) {
	var p mcp.CancelledParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.owed[id] > 0 {
		c.dropped[id] = true
	}
	c.mu.Unlock()
}

// readLine reads one line of at most max bytes, without its newline. A
// longer line is read to its end and dropped (tooLong).
func readLine(in *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 { // +1: the newline
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// Read returns the next message; at the end of input, once every request
// read has been answered (or drainTimeout passed), io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.incoming:
		if ok {
			return msg, nil
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
	deadline := time.NewTimer(drainTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		owed := len(c.owed)
		c.mu.Unlock()
		if owed == 0 {
			return nil, io.EOF
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			return nil, errors.New("end of input with requests still unanswered after " + drainTimeout.String())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
}

// Write writes one message as one line.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && resp.Error != nil {
		resp.Error = plainRPCError(resp.Error)
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	drop := isResp && c.dropped[resp.ID]
	c.mu.Unlock()
	if !drop {
		if err := c.writeLine(b); err != nil {
			return err
		}
	}
	if isResp {
		c.mu.Lock()
		if c.owed[resp.ID]--; c.owed[resp.ID] <= 0 {
			delete(c.owed, resp.ID)
			delete(c.dropped, resp.ID)
		}
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return nil
}

func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close stops reading; the input itself (stdin) is the caller's to close.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
