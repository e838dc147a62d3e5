# citecheck as an OCI image: `docker run -i --rm IMAGE mcp` is MCP over
# stdio (server.json's package), `docker run -p 8080:8080 IMAGE` the HTTP
# service on all interfaces (configure it by CITECHECK_* variables, see
# docs/deploy.md).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static, so the image needs no libc; -buildvcs stamps the revision that
# `citecheck version` prints.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=auto -o /out/citecheck ./cmd/citecheck

FROM gcr.io/distroless/static-debian12:nonroot
# The MCP registry checks that the image names the server it is listed as.
LABEL io.modelcontextprotocol.server.name="io.github.citecheck/citecheck"
COPY --from=build /out/citecheck /citecheck
ENV CITECHECK_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/citecheck"]
CMD ["serve"]
