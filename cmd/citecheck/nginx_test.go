package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/server"
)

// Replicas behind a real load balancer (docs/deploy.md, "Behind nginx"):
// Debian's nginx, run with the configuration that page shows, in front of
// three `citecheck serve` processes on loopback.

// The addresses and the log folder of the configuration in docs/deploy.md,
// which the test replaces with its own; everything else is used as written.
const (
	docsNginxListen = "127.0.0.1:8080"
	docsNginxLogDir = "/var/log/nginx/"
)

var docsReplicaAddrs = [3]string{"127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083"}

// nginxBinary is Debian's nginx, or the test skips: it is a system package
// (.ci/run installs it), not something go test can fetch.
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx" // not on a non-root user's PATH on Debian
	}
	t.Skip("nginx is not installed (apt-get install nginx; .ci/run installs it)")
	return ""
}

// docsNginxConfig is the one nginx block of docs/deploy.md with the
// addresses and the log folder replaced; each must be there exactly as
// the page says, so a change to the page that the test would not follow
// fails here rather than testing something else.
func docsNginxConfig(t *testing.T, listen string, replicas [3]string, logDir string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```nginx\n(.*?)```").FindAllSubmatch(page, -1)
	if len(blocks) != 1 {
		t.Fatalf("docs/deploy.md has %d nginx blocks, want 1", len(blocks))
	}
	conf := string(blocks[0][1])
	replace := func(old, new string, want int) {
		if n := strings.Count(conf, old); n != want {
			t.Fatalf("docs/deploy.md's nginx block has %q %d times, want %d", old, n, want)
		}
		conf = strings.ReplaceAll(conf, old, new)
	}
	replace(docsNginxListen, listen, 1)
	for i, a := range docsReplicaAddrs {
		replace(a, replicas[i], 1)
	}
	replace(docsNginxLogDir, logDir+string(filepath.Separator), 1)
	return conf
}

// replica is one `citecheck serve` process and what it logged.
type replica struct {
	cmd      *exec.Cmd
	addr     string
	stopping chan struct{} // closed when it logs "shutting down"
	exited   chan struct{} // closed when it has exited, with waitErr set
	waitErr  error
	stderr   testkit.SyncBuffer
}

// startReplica starts `citecheck serve` on a free loopback port, with
// flags added to its command line.
func startReplica(t *testing.T, bin string, flags ...string) *replica {
	t.Helper()
	r := &replica{stopping: make(chan struct{}), exited: make(chan struct{})}
	r.cmd = bare(t, bin, nil, append([]string{"serve", "--addr", "127.0.0.1:0"}, flags...)...)
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); <-r.exited })
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(nil, 1<<20)
		var once sync.Once
		for sc.Scan() {
			fmt.Fprintln(&r.stderr, sc.Text())
			if strings.Contains(sc.Text(), `"msg":"shutting down"`) {
				once.Do(func() { close(r.stopping) })
			}
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	go func() { <-logged; r.waitErr = r.cmd.Wait(); close(r.exited) }()
	m := regexp.MustCompile(`serving on http://(127\.0\.0\.1:\d+) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve printed %q (%v)", line, err)
	}
	r.addr = m[1]
	return r
}

// freeLoopbackAddr is a loopback port nothing listens on at the moment
// (nginx takes its port from the configuration, not from the kernel).
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startNginx runs nginx in the foreground with conf as its http-level
// configuration, everything it writes under dir, as an unprivileged user
// (nobody) when the test runs as root. It returns nginx's process; the
// caller stops it (SIGQUIT, for a complete log), or the cleanup kills it
// and its worker.
func startNginx(t *testing.T, bin, dir, conf string) (*exec.Cmd, *testkit.SyncBuffer) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "citecheck.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// Debian's build keeps its temporary files under /var/lib/nginx, which
	// an unprivileged nginx cannot create: every path is the test's own.
	var main strings.Builder
	fmt.Fprintf(&main, "daemon off;\nworker_processes 1;\npid %s;\nevents { worker_connections 256; }\nhttp {\n", filepath.Join(dir, "nginx.pid"))
	for _, tmp := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&main, "    %s_temp_path %s;\n", tmp, filepath.Join(dir, tmp))
	}
	fmt.Fprintf(&main, "    access_log off;\n    include %s;\n}\n", filepath.Join(dir, "citecheck.conf"))
	mainConf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(mainConf, []byte(main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", mainConf, "-e", "stderr")
	var stderr testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	// Its own process group, so that the cleanup ends the worker with the
	// master: a killed master leaves its worker running, holding the
	// output pipe that Wait waits on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Geteuid() == 0 {
		const nobody = 65534
		if err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chown(p, nobody, nobody)
		}); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil { // not stopped and waited for by the test
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	})
	return cmd, &stderr
}

// nginxDir is a folder for nginx's configuration, logs and temporary
// files, readable by the unprivileged user startNginx runs it as.
func nginxDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "citecheck-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitForNginx returns once nginx at base answers /healthz 200 (through a
// replica); its first answer is bounded by the tries, not by a clock.
func waitForNginx(t *testing.T, client *http.Client, base string, ngxLog *testkit.SyncBuffer) {
	t.Helper()
	for try := 0; ; try++ {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if try == 300 {
			t.Fatalf("nginx did not answer /healthz: %v\n%s", err, ngxLog.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopNginx stops nginx gracefully (SIGQUIT), so that its access log is
// complete. The client's idle connections are closed first: nginx closes
// kept-alive ones at once, but waits out client_header_timeout (60 s) on
// one that never carried a request, which Go's transport can leave in its
// pool (a connection it dialed for a request that an older one, freed
// meanwhile, then took).
func stopNginx(t *testing.T, ngx *exec.Cmd, ngxLog *testkit.SyncBuffer, client *http.Client) {
	t.Helper()
	client.CloseIdleConnections()
	ngx.Process.Signal(syscall.SIGQUIT)
	if err := ngx.Wait(); err != nil {
		t.Errorf("nginx on SIGQUIT: %v\n%s", err, ngxLog.String())
	}
}

// nginxCase is a conformance request and the answer the engine gives it in
// process.
type nginxCase struct {
	name   string
	body   []byte
	status int
	answer []byte
}

func nginxCases(t *testing.T) []nginxCase {
	t.Helper()
	var cases []nginxCase
	for _, c := range testkit.Conformance(t) {
		b, e := citecheck.ReadBody(bytes.NewReader(c.Body))
		var res *citecheck.Result
		if e == nil {
			res, e = citecheck.Run(b)
		}
		status := http.StatusOK
		if ce := citecheck.AsError(e); ce != nil {
			status = server.HTTPStatus(ce.Code)
		}
		cases = append(cases, nginxCase{c.Name, c.Body, status, citecheck.AppendEnvelope(nil, res, e)})
	}
	return cases
}

var executePathForNginx = "/v1/tools/" + citecheck.ToolID + "/versions/" + citecheck.ToolVersion + "/execute"

// postThrough sends c's body to base and says how the answer differs from
// the engine's, or "".
func postThrough(client *http.Client, base string, c nginxCase) string {
	resp, err := client.Post(base+executePathForNginx, "application/json", bytes.NewReader(c.body))
	if err != nil {
		return fmt.Sprintf("%s: %v", c.name, err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != c.status || !bytes.Equal(got, c.answer) {
		return fmt.Sprintf("%s: status %d (%v) %.300q, want %d %.300q", c.name, resp.StatusCode, err, got, c.status, c.answer)
	}
	return ""
}

// answerCount counts answered requests and wakes whoever waits for a count.
type answerCount struct {
	mu    sync.Mutex
	n     int
	waits map[int]chan struct{}
}

func (p *answerCount) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if ch, ok := p.waits[p.n]; ok {
		close(ch)
		delete(p.waits, p.n)
	}
}

// reach is closed once `more` requests are answered after the call.
func (p *answerCount) reach(more int) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	if p.waits == nil {
		p.waits = map[int]chan struct{}{}
	}
	p.waits[p.n+more] = ch
	return ch
}

// TestNginxRetriesAKilledReplicaAndWaitsOnADrainedOne runs docs/deploy.md's
// nginx configuration in front of three replicas. Clients send conformance
// requests without pause; replica 0 gets SIGTERM while it holds a request
// (sent to it directly, its body held back until the replica is shutting
// down) and replica 1 is killed. Every request through nginx must be
// answered 200 with the engine's answer, the held one too, and replica 0
// must exit 0; the access log shows how many nginx retried, at least one
// (the killed replica's connections fail). Counted, not timed: a few
// hundred requests, about 2 s on 2 cores.
func TestNginxRetriesAKilledReplicaAndWaitsOnADrainedOne(t *testing.T) {
	nginx := nginxBinary(t)
	bin := builtBinary(t)
	dir := nginxDir(t)

	var reps [3]*replica
	var addrs [3]string
	for i := range reps {
		reps[i] = startReplica(t, bin)
		addrs[i] = reps[i].addr
	}
	listen := freeLoopbackAddr(t)
	ngx, ngxLog := startNginx(t, nginx, dir, docsNginxConfig(t, listen, addrs, dir))
	base := "http://" + listen

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	waitForNginx(t, client, base, ngxLog)

	cases := nginxCases(t)
	posts := 0
	// Every case once, refusals included: nginx passes the service's
	// statuses and bodies through untouched.
	for _, c := range cases {
		posts++
		if msg := postThrough(client, base, c); msg != "" {
			t.Error(msg)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	var good []nginxCase
	for _, c := range cases {
		if c.status == http.StatusOK {
			good = append(good, c)
		}
	}

	// Two clients: at most two requests at once, which the one replica
	// left can always take (its default --max-in-flight is at least 2), so
	// no answer is a 503 from overload, which is not what this tests.
	const clients = 2
	var (
		p       answerCount
		mu      sync.Mutex
		sent    int
		wrong   []string
		stop    = make(chan struct{})
		stopped sync.WaitGroup
	)
	warm := p.reach(150)
	for g := range clients {
		stopped.Add(1)
		go func() {
			defer stopped.Done()
			for i := g; ; i += clients {
				select {
				case <-stop:
					return
				default:
				}
				msg := postThrough(client, base, good[i%len(good)])
				mu.Lock()
				sent++
				if msg != "" && len(wrong) < 10 {
					wrong = append(wrong, msg)
				}
				mu.Unlock()
				p.add()
			}
		}()
	}
	<-warm

	// A request replica 0 holds when SIGTERM comes: its head is read and
	// the handler is reading the body (the 100 Continue says so), which
	// arrives only once the replica is shutting down.
	held := good[0]
	conn, err := net.Dial("tcp", reps[0].addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		executePathForNginx, reps[0].addr, len(held.body))
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("held request: %v %v, want 100 Continue", resp, err)
	}
	reps[0].cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-reps[0].stopping:
	case <-time.After(30 * time.Second):
		t.Fatalf("replica 0 did not log its shutdown within 30 s of SIGTERM\n%s", reps[0].stderr.String())
	}
	reps[1].cmd.Process.Kill()
	// Shutting down, replica 0 stops accepting: wait for that, by tries.
	for try := 0; ; try++ {
		c, err := net.Dial("tcp", reps[0].addr)
		if err != nil {
			break
		}
		c.Close()
		if try == 500 {
			t.Fatal("replica 0 still accepts connections after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn.Write(held.body)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("held request: %v", err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, held.answer) {
		t.Errorf("held request: %d %.300q, want 200 %.300q", resp.StatusCode, got, held.answer)
	}
	conn.Close()
	select {
	case <-reps[0].exited:
		if err := reps[0].waitErr; err != nil {
			t.Errorf("replica 0 after SIGTERM: %v\n%s", err, reps[0].stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Error("replica 0 did not exit within 30 s of SIGTERM")
	}

	<-p.reach(300) // after both replicas are gone
	close(stop)
	stopped.Wait()
	for _, w := range wrong {
		t.Error(w)
	}

	stopNginx(t, ngx, ngxLog, client)
	log, err := os.ReadFile(filepath.Join(dir, "citecheck.log"))
	if err != nil {
		t.Fatal(err)
	}
	var lines, retried int
	upstream := regexp.MustCompile(` upstream=(.*) upstream_status=`)
	for _, line := range strings.Split(string(log), "\n") {
		if !strings.Contains(line, `"POST `) {
			continue
		}
		lines++
		if m := upstream.FindStringSubmatch(line); m != nil && strings.Contains(m[1], ",") {
			retried++
			t.Logf("retried: %s", line)
		}
	}
	if want := posts + sent; lines != want {
		t.Errorf("access log has %d POST lines, want %d", lines, want)
	}
	if retried == 0 {
		t.Errorf("no request was retried after a replica was killed: the test did not test the retry\n%s", log)
	}
	t.Logf("%d requests through nginx, %d of them retried on another replica", posts+sent, retried)
}

// nginxAnswer is how an answer through nginx reached the client.
type nginxAnswer int

const (
	answerOK         nginxAnswer = iota // 200, the service's answer
	answerOverloaded                    // the service's own 503 overloaded, with Retry-After
	answerWrong                         // anything else: nginx's 502 page, a broken connection
)

// classifyThrough posts body to path through nginx at base and says how
// the answer came back; what describes a wrong one. want, when not nil, is
// the 200 answer's exact body.
func classifyThrough(client *http.Client, base, path string, body, want []byte) (nginxAnswer, string) {
	resp, err := client.Post(base+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return answerWrong, err.Error()
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return answerWrong, fmt.Sprintf("status %d, body cut: %v", resp.StatusCode, err)
	}
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	switch {
	case resp.StatusCode == http.StatusOK && isJSON && (want == nil || bytes.Equal(got, want)):
		return answerOK, ""
	case resp.StatusCode == http.StatusServiceUnavailable && isJSON && resp.Header.Get("Retry-After") == "1":
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		if json.Unmarshal(got, &e) == nil && e.Error.Code == citecheck.CodeOverloaded {
			return answerOverloaded, ""
		}
	}
	return answerWrong, fmt.Sprintf("status %d %q (Retry-After %q) %.200q", resp.StatusCode,
		resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After"), got)
}

// TestNginxPassesOverloadThroughAndEjectsNoBusyReplica runs docs/deploy.md's
// nginx configuration in front of three replicas made easy to saturate
// (--max-in-flight 2, so one dear check at a time, and --queue-wait 20ms),
// and sends bursts of dear requests (explains of 1 MiB, about 10 ms of CPU
// each) 24 at a time, with a client sending cheap ones throughout, until
// every replica has answered overloaded. Every answer must be the
// service's own: 200, or 503 overloaded JSON with Retry-After, never
// nginx's 502 page. Then, at once, cheap requests one at a time: each must
// be the engine's 200 at the first try, and between them they must reach
// every replica. A configuration whose nginx counts a 503 as a failed
// attempt (proxy_next_upstream http_503 with max_fails) fails here: it
// takes the busy replicas out for fail_timeout and answers with its own
// "no live upstreams" page meanwhile. Counted, not timed: a burst or two
// and 30 requests, 0.2 to 3 s on a busy 2-core machine.
func TestNginxPassesOverloadThroughAndEjectsNoBusyReplica(t *testing.T) {
	nginx := nginxBinary(t)
	bin := builtBinary(t)
	dir := nginxDir(t)

	var reps [3]*replica
	var addrs [3]string
	for i := range reps {
		reps[i] = startReplica(t, bin, "--max-in-flight", "2", "--queue-wait", "20ms")
		addrs[i] = reps[i].addr
	}
	listen := freeLoopbackAddr(t)
	ngx, ngxLog := startNginx(t, nginx, dir, docsNginxConfig(t, listen, addrs, dir))
	base := "http://" + listen

	const burst = 24
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: burst + 1}}
	defer client.CloseIdleConnections()
	waitForNginx(t, client, base, ngxLog)

	var cheap nginxCase
	for _, c := range nginxCases(t) {
		if c.status == http.StatusOK {
			cheap = c
			break
		}
	}
	dear := testkit.HostileRequest("alphabet2", 1, testkit.HostileShape{}).Body()
	explainPath := "/v1/tools/" + citecheck.ToolID + "/versions/" + citecheck.ToolVersion + "/explain"

	overloaded := func() (n [3]int) {
		for i, r := range reps {
			n[i] = strings.Count(r.stderr.String(), `"outcome":"overloaded"`)
		}
		return n
	}
	everyOverloaded := func() bool {
		n := overloaded()
		return n[0] > 0 && n[1] > 0 && n[2] > 0
	}

	var (
		mu           sync.Mutex
		dearAnswers  [3]int // by nginxAnswer
		cheapAnswers [3]int
		wrong        []string
	)
	record := func(counts *[3]int, kind nginxAnswer, what, msg string) {
		mu.Lock()
		defer mu.Unlock()
		counts[kind]++
		if kind == answerWrong && len(wrong) < 10 {
			wrong = append(wrong, what+": "+msg)
		}
	}
	rounds := 0
	for ; !everyOverloaded(); rounds++ {
		// The replicas log an answer after writing it: a few more rounds
		// for the log lines to arrive, but not forever.
		if rounds == 10 {
			for _, w := range wrong {
				t.Error(w)
			}
			t.Fatalf("%d bursts of %d overloaded the replicas %v times: the test did not test overload", rounds, burst, overloaded())
		}
		stopCheap := make(chan struct{})
		var cheapDone, dearDone sync.WaitGroup
		cheapDone.Go(func() {
			for {
				kind, msg := classifyThrough(client, base, executePathForNginx, cheap.body, cheap.answer)
				record(&cheapAnswers, kind, "cheap request during a burst", msg)
				select {
				case <-stopCheap:
					return
				default:
				}
			}
		})
		for range burst {
			dearDone.Go(func() {
				kind, msg := classifyThrough(client, base, explainPath, dear, nil)
				record(&dearAnswers, kind, "dear request", msg)
			})
		}
		dearDone.Wait()
		close(stopCheap)
		cheapDone.Wait()
	}
	for _, w := range wrong {
		t.Error(w)
	}
	if dearAnswers[answerOverloaded]+cheapAnswers[answerOverloaded] == 0 {
		t.Errorf("no request was answered overloaded through nginx (dear %v, cheap %v), though the replicas refused %v", dearAnswers, cheapAnswers, overloaded())
	}

	// The burst is over: cheap requests one at a time, at once.
	const after = 30
	for i := range after {
		if kind, msg := classifyThrough(client, base, executePathForNginx, cheap.body, cheap.answer); kind != answerOK {
			t.Errorf("cheap request %d after the burst: %s", i, msg)
		}
	}

	stopNginx(t, ngx, ngxLog, client)
	log, err := os.ReadFile(filepath.Join(dir, "citecheck.log"))
	if err != nil {
		t.Fatal(err)
	}
	var posts []string
	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, `"POST `) {
			posts = append(posts, line)
		}
	}
	if len(posts) < after {
		t.Fatalf("access log has %d POST lines, want at least %d:\n%s", len(posts), after, log)
	}
	// Each line of the requests after the burst names one replica (no
	// retry), and between them every replica: none was left out.
	upstream := regexp.MustCompile(` upstream=(.*) upstream_status=(.*)$`)
	served := map[string]int{}
	for _, line := range posts[len(posts)-after:] {
		m := upstream.FindStringSubmatch(line)
		if m == nil || m[2] != "200" {
			t.Errorf("after the burst: %s", line)
			continue
		}
		served[m[1]]++
	}
	for _, a := range addrs {
		if served[a] == 0 {
			t.Errorf("after the burst, %d cheap requests went to %v and none to %s: a busy replica was taken out", after, served, a)
		}
	}
	// No replica failed here, so a request nginx sent to a second one
	// would be a 503 it did not pass through.
	retried := 0
	for _, line := range posts {
		if m := upstream.FindStringSubmatch(line); m != nil && strings.Contains(m[1], ",") {
			retried++
			if retried <= 3 {
				t.Errorf("retried, though no replica failed: %s", line)
			}
		}
	}
	t.Logf("%d bursts of %d dear requests: %d answered 200, %d 503 overloaded, %d otherwise; cheap requests meanwhile: %d, %d, %d; replicas refused %v; %d of %d requests retried by nginx; after the burst, %d cheap requests went to %v",
		rounds, burst, dearAnswers[answerOK], dearAnswers[answerOverloaded], dearAnswers[answerWrong],
		cheapAnswers[answerOK], cheapAnswers[answerOverloaded], cheapAnswers[answerWrong],
		overloaded(), retried, len(posts), after, served)
}
