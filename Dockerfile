# citecheck as an OCI image: `docker run -i --rm IMAGE mcp` is MCP over
# stdio (server.json's package), `docker run -p 8080:8080 IMAGE` the HTTP
# service on all interfaces (configure it by CITECHECK_* variables, see
# docs/deploy.md).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The one build of the command, as the release archives and the tests
# build it (static, so the image needs no libc; the revision stamped for
# `citecheck version`). A release passes its tag, which reaches the script
# as a variable: docker build --build-arg CITECHECK_VERSION=v1.2.0 .
ARG CITECHECK_VERSION=
RUN build/citecheck.sh /out/citecheck

FROM gcr.io/distroless/static-debian12:nonroot
# The MCP registry checks that the image names the server it is listed as.
LABEL io.modelcontextprotocol.server.name="io.github.citecheck/citecheck"
# The licence, as the release archives and the npm package carry it: the
# text beside the binary, and its SPDX name where registries show it.
LABEL org.opencontainers.image.licenses="Apache-2.0"
COPY LICENSE /LICENSE
COPY --from=build /out/citecheck /citecheck
ENV CITECHECK_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/citecheck"]
CMD ["serve"]
