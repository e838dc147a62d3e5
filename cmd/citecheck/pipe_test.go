package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// frame is one request of the pipe protocol (pipe.go).
func frame(op, mode uint8, payload []byte) []byte {
	h := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	return append(append(h, op, mode, 0, 0), payload...)
}

func fieldsOf(parts ...[]byte) []byte {
	var p []byte
	for _, f := range parts {
		p = appendField(p, f)
	}
	return p
}

type pipeReply struct {
	op, status uint8
	payload    []byte
}

// pipeSession runs cmdPipe over the frames and returns its answers and
// exit status. Answers that are not well-formed frames fail the test.
func pipeSession(t testing.TB, frames ...[]byte) ([]pipeReply, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cmdPipe(context.Background(), nil, bytes.NewReader(bytes.Join(frames, nil)), &out, &errb)
	return readReplies(t, out.Bytes()), code, errb.String()
}

func readReplies(t testing.TB, b []byte) []pipeReply {
	var replies []pipeReply
	for len(b) > 0 {
		if len(b) < 8 {
			t.Fatalf("a truncated answer header: %q", b)
		}
		n := int(binary.LittleEndian.Uint32(b))
		if b[6] != 0 || b[7] != 0 || len(b)-8 < n {
			t.Fatalf("a malformed answer frame: header %v, %d bytes left", b[:8], len(b)-8)
		}
		replies = append(replies, pipeReply{op: b[4], status: b[5], payload: b[8 : 8+n]})
		b = b[8+n:]
	}
	return replies
}

type conformanceCase struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

func conformanceBodies(t testing.TB) []conformanceCase {
	f, err := os.Open("../../testdata/conformance.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []conformanceCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var c conformanceCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatal("no conformance cases")
	}
	return cases
}

// runLine is what `citecheck run` prints for body with the flags, without
// its newline.
func runLine(t testing.TB, body []byte, flags ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	args := append([]string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-"}, flags...)
	run(context.Background(), args, bytes.NewReader(body), &out, io.Discard)
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// Every mode of a check answers what `run` prints for the body, byte for
// byte, and a batch answers each body as it is answered alone.
func TestPipeAnswersAreWhatRunPrints(t *testing.T) {
	t.Parallel()
	cases := conformanceBodies(t)
	over := append([]byte(`{"sources":[],"citations":[]}`), bytes.Repeat([]byte(" "), citecheck.MaxInputBytes)...)
	bodies := [][]byte{over, []byte("\xef\xbb\xbf{}"), []byte(`{"sources":`), []byte("\xed\xa0\x80")}
	for _, c := range cases {
		bodies = append(bodies, []byte(c.Body))
	}
	for mode, flags := range map[uint8][]string{pipeExecute: nil, pipeAll: {"--all"}, pipeExplain: {"--explain"}} {
		var frames [][]byte
		var batch [][]byte
		for _, b := range bodies {
			frames = append(frames, frame(pipeCheck, mode, b))
			batch = append(batch, b)
		}
		frames = append(frames, frame(pipeBatch, mode, fieldsOf(batch...)))
		replies, code, _ := pipeSession(t, frames...)
		if code != exitValid || len(replies) != len(bodies)+1 {
			t.Fatalf("mode %d: exit %d, %d answers for %d frames", mode, code, len(replies), len(bodies)+1)
		}
		answers, err := splitFields(replies[len(bodies)].payload)
		if err != nil || len(answers) != len(bodies) {
			t.Fatalf("mode %d: the batch's answer has %d fields (%v), want %d", mode, len(answers), err, len(bodies))
		}
		for i, b := range bodies {
			want := runLine(t, b, flags...)
			if r := replies[i]; r.op != pipeCheck || r.status != 0 || !bytes.Equal(r.payload, want) {
				t.Errorf("mode %d, body %d: op %d status %d\n got %.200s\nwant %.200s", mode, i, r.op, r.status, r.payload, want)
			}
			if !bytes.Equal(answers[i], want) {
				t.Errorf("mode %d, body %d in a batch:\n got %.200s\nwant %.200s", mode, i, answers[i], want)
			}
		}
	}
}

// A body longer than max_input_bytes is refused by its length alone, as
// the execute route refuses it, and the bytes past the kept ones are read
// and dropped, leaving the next frame in step.
func TestPipeBodyOverTheLimitIsRefusedAndSkipped(t *testing.T) {
	t.Parallel()
	valid, err := os.ReadFile("../../examples/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	over := bytes.Repeat([]byte("x"), 3*citecheck.MaxInputBytes)
	replies, code, _ := pipeSession(t, frame(pipeCheck, pipeExecute, over), frame(pipeBatch, pipeExecute, fieldsOf(over, valid)), frame(pipeCheck, pipeExecute, valid))
	if code != exitValid || len(replies) != 3 {
		t.Fatalf("exit %d, %d answers", code, len(replies))
	}
	refusal := citecheck.AppendEnvelope(nil, nil, citecheck.BodyTooLarge(citecheck.MaxInputBytes+1))
	answers, _ := splitFields(replies[1].payload)
	for i, got := range [][]byte{replies[0].payload, answers[0]} {
		if !bytes.Equal(got, refusal) {
			t.Errorf("answer %d: %s, want %s", i, got, refusal)
		}
	}
	if want := runLine(t, valid); !bytes.Equal(answers[1], want) || !bytes.Equal(replies[2].payload, want) {
		t.Errorf("the body after the long one: %s and %s, want %s", answers[1], replies[2].payload, want)
	}
}

// A frame the pipe cannot read is answered with pipeBroken, saying why,
// and ends the pipe (what follows would be out of step); the end of the
// input between frames ends it quietly, inside one loudly.
func TestPipeStopsAtAFrameItCannotRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		input []byte
		code  int
		why   string // in the last answer (pipeBroken) or on stderr
	}{
		{"no frame at all", nil, exitValid, ""},
		{"an unknown op", frame(9, 0, nil), exitError, "unknown op 9"},
		{"an unknown mode", frame(pipeCheck, 3, []byte("{}")), exitError, "unknown mode 3"},
		{"an unknown batch mode", frame(pipeBatch, 7, nil), exitError, "unknown mode 7"},
		{"a batch field past its frame", frame(pipeBatch, 0, []byte{9, 0, 0, 0, 'x'}), exitError, "overruns"},
		{"a batch field's length cut", frame(pipeBatch, 0, []byte{9, 0}), exitError, "overruns"},
		{"a quotes field past its frame", frame(pipeQuotes, 0, []byte{200, 0, 0, 0}), exitError, "overruns"},
		{"quotes without its fields", frame(pipeQuotes, 0, fieldsOf([]byte(`{"format":"json"}`))), exitError, "quotes takes"},
		{"quotes with bad options", frame(pipeQuotes, 0, fieldsOf([]byte(`{"format":"xml"}`), nil, nil)), exitError, "quotes options"},
		{"annotations with a source cut", frame(pipeAnnotations, 0, fieldsOf([]byte("[]"), []byte("iri"))), exitError, "triples"},
		{"a header cut", []byte{1, 0, 0}, exitError, "inside a frame's header"},
		{"a body cut", frame(pipeCheck, 0, []byte("{}"))[:9], exitError, "ended inside a frame"},
		{"a frame over the bound, refused at its header", append(binary.LittleEndian.AppendUint32(nil, maxPipeFrame+1), pipeCheck, 0, 0, 0), exitError, "over 2147483648"},
		{"a batch over its bound", append(binary.LittleEndian.AppendUint32(nil, maxBatchFrame+1), pipeBatch, 0, 0, 0), exitError, "a batch of 67108865 bytes"},
		{"a batch of too many bodies", frame(pipeBatch, 0, make([]byte, 4*(maxBatchBodies+1))), exitError, "more than 65536 bodies"},
		{"a header's zero word not zero", []byte{0, 0, 0, 0, pipeHello, 0, 1, 0}, exitError, "not zero"},
		{"a mode on hello", frame(pipeHello, pipeShared, nil), exitError, "unknown mode 128"},
		{"a mode on quotes", frame(pipeQuotes, 1, nil), exitError, "unknown mode 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.input
			var out, errb bytes.Buffer
			code := cmdPipe(context.Background(), nil, bytes.NewReader(in), &out, &errb)
			replies := readReplies(t, out.Bytes())
			if code != c.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if c.code == exitValid {
				return
			}
			said := errb.String()
			if len(replies) > 0 {
				last := replies[len(replies)-1]
				if last.status != pipeBroken {
					t.Fatalf("last answer's status %d, want %d", last.status, pipeBroken)
				}
				said += string(last.payload)
			}
			if !strings.Contains(said, c.why) {
				t.Errorf("said %q, want it to hold %q", said, c.why)
			}
		})
	}
}

// quotes over text in memory is `citecheck quotes` over the same text in
// files: the same lines, the same exit status, the same error message.
func TestPipeQuotesIsTheCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kafka, err := os.ReadFile(quotesFixtures + "kafka.txt")
	if err != nil {
		t.Fatal(err)
	}
	request, err := os.ReadFile(quotesFixtures + "anthropic-request.json")
	if err != nil {
		t.Fatal(err)
	}
	response, err := os.ReadFile(quotesFixtures + "anthropic-response.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kafkaFile := write("kafka.txt", kafka)
	for _, c := range []struct {
		name    string
		input   string
		request bool
		explain bool
		format  string
	}{
		{"verbatim", "„Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3]", false, false, "json"},
		{"near, explained", "„Als Gregor Samsa eines Abends erwachte“ [3] and \"aus unruhigen  Träumen\" [3]", false, true, "json"},
		{"the text report", "„Als Gregor Samsa eines Abends erwachte“ [3]", false, true, "text"},
		{"not JSON", `{"citations": [`, false, false, "json"},
		{"a structured answer", `{"citations": [{"source_id": "3", "quote": "Gregor Samsa"}]}`, false, false, "json"},
		{"an Anthropic response", string(response), true, true, "json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"quotes", "--source", "3=" + kafkaFile, "--format", c.format, "--color", "never"}
			if c.explain {
				args = append(args, "--explain")
			}
			if c.request {
				args = append(args, "--request", write("request.json", request))
			}
			var out, errb bytes.Buffer
			code := run(context.Background(), append(args, write("input", []byte(c.input))), nil, &out, &errb)
			opts, _ := json.Marshal(map[string]any{"format": c.format, "explain": c.explain, "request": c.request})
			req := []byte(nil)
			if c.request {
				req = request
			}
			replies, _, _ := pipeSession(t, frame(pipeQuotes, 0, fieldsOf(opts, []byte(c.input), req, []byte("3"), kafka)))
			if len(replies) != 1 {
				t.Fatalf("%d answers", len(replies))
			}
			f, err := splitFields(replies[0].payload)
			if err != nil || len(f) != 3 {
				t.Fatalf("fields %d, %v", len(f), err)
			}
			if int(replies[0].status) != code || !bytes.Equal(f[0], out.Bytes()) {
				t.Errorf("status %d, want %d\n got %s\nwant %s", replies[0].status, code, f[0], out.Bytes())
			}
			if code == exitError {
				// The command names its input file; the pipe calls it "text".
				wantMsg := strings.Replace(strings.TrimSpace(strings.TrimPrefix(errb.String(), "citecheck: ")), write("input", []byte(c.input)), "text", 1)
				if string(f[2]) != wantMsg || len(f[1]) == 0 {
					t.Errorf("error %s %q, want %q", f[1], f[2], wantMsg)
				}
			}
		})
	}
}

// A source that is not UTF-8 is refused by quotes, and fails the targets
// on it in annotations, as an unreadable file does; a byte order mark at a
// source's start is not text.
func TestPipeSourcesAreReadAsTheCommandsReadFiles(t *testing.T) {
	t.Parallel()
	opts := []byte(`{"format":"json"}`)
	replies, _, _ := pipeSession(t,
		frame(pipeQuotes, 0, fieldsOf(opts, []byte(`"caf" [s]`), nil, []byte("s"), []byte("caf\xe9"))),
		frame(pipeQuotes, 0, fieldsOf(opts, []byte(`"abc" [s]`), nil, []byte("s"), []byte("\uFEFFabc"))),
	)
	f, _ := splitFields(replies[0].payload)
	if replies[0].status != exitError || string(f[1]) != citecheck.CodeInvalidInput || !strings.Contains(string(f[2]), `source "s": not UTF-8: invalid byte 0xE9 at byte offset 3`) {
		t.Errorf("a source not UTF-8: status %d, %q %q", replies[0].status, f[1], f[2])
	}
	f, _ = splitFields(replies[1].payload)
	if replies[1].status != exitValid || !bytes.Contains(f[0], []byte(`"start":0`)) {
		t.Errorf("a source after a BOM: status %d, %s", replies[1].status, f[0])
	}
	export := []byte(`{"id":"a","target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"caf"}}}`)
	replies, _, _ = pipeSession(t, frame(pipeAnnotations, 0, fieldsOf(export, []byte("s"), []byte("caf\xe9"), nil)))
	f, _ = splitFields(replies[0].payload)
	if replies[0].status != exitValid || !bytes.Contains(f[0], []byte("not UTF-8")) {
		t.Errorf("annotations on a source not UTF-8: status %d, %s", replies[0].status, f[0])
	}
}

// annotations over an export in memory gives the lines `citecheck
// annotations` prints for it in a file, and its notices.
func TestPipeAnnotationsIsTheCommand(t *testing.T) {
	t.Parallel()
	export, err := os.ReadFile("../../annotation/testdata/w3c-collection1.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	run(context.Background(), []string{"annotations", "-"}, bytes.NewReader(export), &out, io.Discard)
	replies, _, _ := pipeSession(t, frame(pipeAnnotations, 0, fieldsOf(export)), frame(pipeAnnotations, 0, fieldsOf([]byte("{"))))
	f, _ := splitFields(replies[0].payload)
	if replies[0].status != exitValid || !bytes.Equal(f[0], out.Bytes()) || len(f[1]) != 0 || !json.Valid(f[2]) {
		t.Errorf("status %d, message %q, notices %s\n got %s\nwant %s", replies[0].status, f[1], f[2], f[0], out.Bytes())
	}
	f, _ = splitFields(replies[1].payload)
	if replies[1].status != exitError || !strings.Contains(string(f[1]), "JSON") {
		t.Errorf("an export that is not JSON: status %d, message %q", replies[1].status, f[1])
	}
}

// hello names the protocol, which the package checks before its first call.
func TestPipeHelloNamesTheProtocol(t *testing.T) {
	t.Parallel()
	replies, code, _ := pipeSession(t, frame(pipeHello, 0, []byte("ignored")))
	if code != exitValid || len(replies) != 1 || !bytes.HasPrefix(replies[0].payload, []byte(pipeProtocol+"citecheck ")) {
		t.Fatalf("exit %d, %q", code, replies)
	}
}

// Any bytes on the pipe's input give well-formed answers and exit 0 or 2:
// never a panic, never a frame the caller cannot read.
func FuzzPipe(f *testing.F) {
	valid, _ := os.ReadFile("../../examples/valid.json")
	f.Add(frame(pipeCheck, pipeExecute, valid))
	f.Add(frame(pipeBatch, pipeExplain, fieldsOf(valid, []byte("{}"), nil)))
	f.Add(frame(pipeQuotes, 0, fieldsOf([]byte(`{"format":"text","explain":true}`), []byte(`"abc" [s]`), nil, []byte("s"), []byte("xabcx"))))
	f.Add(frame(pipeQuotes, 0, fieldsOf([]byte(`{"format":"json","request":true}`), []byte(`{"content":[]}`), []byte(`{"messages":[]}`))))
	f.Add(frame(pipeAnnotations, 0, fieldsOf([]byte(`[{"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"a"}}}]`), []byte("s"), []byte("a"), []byte("v1"))))
	f.Add(frame(pipeHello, 0, nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		code := cmdPipe(context.Background(), nil, bytes.NewReader(in), &out, io.Discard)
		if code != exitValid && code != exitError {
			t.Fatalf("exit %d", code)
		}
		for _, r := range readReplies(t, out.Bytes()) {
			if r.op == pipeBatch && r.status == 0 {
				if _, err := splitFields(r.payload); err != nil {
					t.Fatalf("a batch answer that is not fields: %v", err)
				}
			}
		}
	})
}

// A check whose mode says pipeShared reads its body from the memory file
// named by --body-fd, for as many bytes as its payload says, and answers
// it as the same body sent whole; a length past the memory, or a payload
// that is not a length, is a frame the pipe cannot read.
func TestPipeSharedBodyIsReadFromTheSharedMemory(t *testing.T) {
	t.Parallel()
	if _, _, err := mapShared(-1, 1); err != nil && strings.Contains(err.Error(), "no shared memory") {
		t.Skip("no shared memory on this system")
	}
	valid, err := os.ReadFile("../../examples/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "shared"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(sharedBodySize); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(valid, 0); err != nil {
		t.Fatal(err)
	}
	length := binary.LittleEndian.AppendUint32(nil, uint32(len(valid)))
	session := func(frames ...[]byte) ([]pipeReply, int, string) {
		var out, errb bytes.Buffer
		args := []string{"--body-fd", strconv.Itoa(int(f.Fd()))}
		code := cmdPipe(context.Background(), args, bytes.NewReader(bytes.Join(frames, nil)), &out, &errb)
		return readReplies(t, out.Bytes()), code, errb.String()
	}
	replies, code, _ := session(frame(pipeCheck, pipeExplain|pipeShared, length), frame(pipeCheck, pipeShared, length))
	if code != exitValid || len(replies) != 2 {
		t.Fatalf("exit %d, %d answers", code, len(replies))
	}
	if want := runLine(t, valid, "--explain"); !bytes.Equal(replies[0].payload, want) {
		t.Errorf("explain of the shared body:\n got %s\nwant %s", replies[0].payload, want)
	}
	if want := runLine(t, valid); !bytes.Equal(replies[1].payload, want) {
		t.Errorf("the shared body:\n got %s\nwant %s", replies[1].payload, want)
	}
	for name, c := range map[string]struct {
		payload []byte
		why     string
	}{
		"a length past the memory":       {binary.LittleEndian.AppendUint32(nil, sharedBodySize+1), "over the"},
		"a payload that is not a length": {valid, "its length alone"},
	} {
		replies, code, _ := session(frame(pipeCheck, pipeShared, c.payload))
		if code != exitError || len(replies) != 1 || replies[0].status != pipeBroken || !strings.Contains(string(replies[0].payload), c.why) {
			t.Errorf("%s: exit %d, answers %q", name, code, replies)
		}
	}
	// The caller shrinks the memory under the map: reading it faults, and
	// the fault fails that call alone, with the internal error.
	in, w := io.Pipe()
	out := &testkit.SyncBuffer{}
	done := make(chan int)
	go func() {
		done <- cmdPipe(context.Background(), []string{"--body-fd", strconv.Itoa(int(f.Fd()))}, in, out, io.Discard)
	}()
	w.Write(frame(pipeHello, 0, nil))
	for len(readReplies(t, out.Bytes())) == 0 {
		runtime.Gosched()
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	w.Write(frame(pipeCheck, pipeShared, length))
	w.Write(frame(pipeHello, 0, nil))
	w.Close()
	code = <-done
	replies = readReplies(t, out.Bytes())
	if code != exitValid || len(replies) != 3 || !bytes.Contains(replies[1].payload, []byte(`"code":"internal"`)) || !bytes.HasPrefix(replies[2].payload, []byte(pipeProtocol)) {
		t.Errorf("a shrunk memory file: exit %d, answers %q", code, replies)
	}
	small, err := os.Create(filepath.Join(t.TempDir(), "small"))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	for _, c := range []struct{ fd, why string }{
		{"987654", "not an open file"},
		{"-2", "not a file descriptor"},
		{strconv.Itoa(int(small.Fd())), "not a memory file of at least 1048577 bytes"},
	} {
		var errb bytes.Buffer
		if code := cmdPipe(context.Background(), []string{"--body-fd", c.fd}, bytes.NewReader(nil), io.Discard, &errb); code != exitError || !strings.Contains(errb.String(), "--body-fd "+c.fd+": "+c.why) {
			t.Errorf("--body-fd %s: exit %d, %q", c.fd, code, errb.String())
		}
	}
}

// A signal ends the pipe once the call in hand is answered, without
// reading another frame; an answer given after the signal is whole (its
// call was not told to stop), whichever comes first.
func TestPipeEndsAfterTheCallInHandOnASignal(t *testing.T) {
	t.Parallel()
	opts := []byte(`{"format":"json"}`)
	call := frame(pipeQuotes, 0, fieldsOf(opts, []byte(`"abc" [s]`), nil, []byte("s"), []byte("xabcx")))
	whole := func(replies []pipeReply) {
		for _, r := range replies {
			f, _ := splitFields(r.payload)
			if r.status != exitValid || len(f) != 3 || !bytes.Contains(f[0], []byte(`"outcome":"verbatim"`)) {
				t.Errorf("an answer around the signal: status %d, %q", r.status, f)
			}
		}
	}
	// The signal after an answer: the next frame is not answered.
	ctx, cancel := context.WithCancel(context.Background())
	in, w := io.Pipe()
	out := &testkit.SyncBuffer{}
	done := make(chan int)
	go func() { done <- cmdPipe(ctx, nil, in, out, io.Discard) }()
	w.Write(call)
	for len(readReplies(t, out.Bytes())) == 0 {
		runtime.Gosched()
	}
	cancel()
	go w.Write(call) // read by the reader, or left unread: never answered
	if code := <-done; code != exitValid {
		t.Fatalf("exit %d", code)
	}
	w.Close()
	if replies := readReplies(t, out.Bytes()); len(replies) != 1 {
		t.Fatalf("%d answers, want the one before the signal", len(replies))
	}
	whole(readReplies(t, out.Bytes()))
	// The signal with a call in hand, or just before it: any answer is whole.
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		var out bytes.Buffer
		r := bytes.NewReader(call)
		code := cmdPipe(ctx, nil, readerFunc(func(p []byte) (int, error) {
			n, err := r.Read(p)
			if r.Len() == 0 {
				cancel() // the signal as the frame's last byte is read
			}
			return n, err
		}), &out, io.Discard)
		if code != exitValid {
			t.Fatalf("exit %d", code)
		}
		whole(readReplies(t, out.Bytes()))
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
