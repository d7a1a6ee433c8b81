# syntax=docker/dockerfile:1
# The honmaster master server: a static binary (the bundled plugins are the
# same binary re-executed) on a small base, run as a non-root user, its data
# in the /data volume. Build and run:
#   docker build -t honmaster .
#   docker run -p 8080:8080 -v honmaster-data:/data honmaster
# or `docker compose up` (compose.yaml). docs/operations.md has more.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that runs on any base. The build context has no
# .git (see .dockerignore), so there is no VCS stamp to embed: the image's
# revision is in its org.opencontainers.image.revision label instead.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/honmaster ./host

FROM alpine:3.22
ARG REVISION=unknown
LABEL org.opencontainers.image.title="honmaster" \
      org.opencontainers.image.description="A Heroes of Newerth master server" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.revision="${REVISION}"
RUN addgroup -S -g 10001 honmaster && adduser -S -D -H -u 10001 -G honmaster honmaster \
    && mkdir /data /backups && chown honmaster:honmaster /data /backups && chmod 0700 /data /backups
COPY --from=build /out/honmaster /usr/local/bin/honmaster
USER honmaster:honmaster
VOLUME /data
WORKDIR /data
# The game port. The operator listener (metrics, console, API) stays on the
# container's loopback unless a configuration file sets operator.listen and
# operator.allow_remote with a token (docs/operations.md).
EXPOSE 8080
# /healthz says ok once storage and every plugin are up.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD wget -q -O /dev/null http://127.0.0.1:8080/healthz || exit 1
# SIGTERM (docker stop) shuts down gracefully within server.shutdown_timeout;
# SIGHUP (docker kill -s HUP) reloads the configuration.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/honmaster"]
CMD ["serve", "--data", "/data"]
