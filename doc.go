// Package citecheck checks citations against the sources they cite: it
// implements the tool citation-batch-check@1.0.0 (see contracts/) exactly.
//
// The engine is pure and safe for concurrent use: [Decode] turns a request
// body into a validated [Request] or an [*Error]; [Check] turns a Request into
// a [Result]; [Run] does both. Nothing here does I/O, logs or keeps global
// state. Around them: [ReadBody] applies the size limit to a stream,
// [AppendEnvelope] writes the contract's answer, [CheckAll] and [Hint] go
// beyond the contract (every citation's outcome, and how to mend a failing
// one). The CLI (cmd/citecheck), the service and MCP (package server) and
// the text report (package report) are thin adapters over these.
//
// Every position and length counts Unicode code points from 0, never bytes or
// UTF-16 units, and text is compared as it is, with no normalization.
//
// Comments throughout the repository cite docs/spec.md, the project's
// statement of exactly what citecheck does, as "spec §N" (spec §1 accepting
// input, §2 checking, §3 worked examples, §4 the interfaces, §5 what goes
// beyond the contract).
package citecheck
