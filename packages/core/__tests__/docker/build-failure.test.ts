import {describe, expect, test} from '@jest/globals';
import {BUILD_FAILURE_TAIL_LINES, classifyBuildFailure, type BuildFailureKind} from '../../src/docker/build-failure.js';

/**
 * Messages as users see them. Each row names its source: the upstream file that prints the message
 * (mirrors of docker/buildx, moby/buildkit, containerd/containerd, grpc/grpc-go,
 * distribution/distribution, docker/cli, golang/go) or the issue where a user reported the output.
 * Paths are at the mirrors' HEAD (buildx 461836b, buildkit 73ed682, containerd 301026e, grpc-go 4793ad0,
 * distribution 0d6b721) unless a tag is given.
 */

const lines = (...l: string[]): string => l.join('\n') + '\n';

/** `docker buildx build` since buildx v0.25.0 (docker/buildx commands/build.go: errors.Wrapf(err, "failed to build")). */
const build = (chain: string): string => `ERROR: failed to build: failed to solve: ${chain}`;

/** Full buildx outputs (plain progress, remote driver, buildx >= 0.25), as the fault tests' fake docker prints them. */
// prettier-ignore
const FIXTURES: Record<string, string[]> = {
  'stream-lost': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 CACHED',
    '',
    '#9 [build 5/6] COPY . .',
    '#9 DONE 0.1s',
    '',
    '#10 [build 6/6] RUN go build -o /out/app ./cmd/app',
    'ERROR: failed to build: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF',
  ],
  'push-reset': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 CACHED',
    '',
    '#9 [build 5/6] COPY . .',
    '#9 DONE 0.1s',
    '',
    '#10 [build 6/6] RUN go build -o /out/app ./cmd/app',
    '#10 DONE 41.3s',
    '',
    '#11 exporting to image',
    '#11 exporting layers 1.8s done',
    '#11 exporting manifest sha256:3c0b8b1f6f43a1b2e0b5f7c0c1b9b0f4e0f3f1d8a7c6b5a4f3e2d1c0b9a8f7e6 done',
    '#11 exporting config sha256:7e1f7c1e2d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 done',
    '#11 naming to ghcr.io/acme/web:1.4.0 done',
    '#11 pushing layers',
    '#11 ...',
    '',
    '#12 [auth] acme/web:pull,push token for ghcr.io',
    '#12 DONE 0.0s',
    '',
    '#11 exporting to image',
    '#11 pushing layers 14.2s done',
    '#11 ERROR: failed to push ghcr.io/acme/web:1.4.0: failed to copy: failed to do request: Put "https://ghcr.io/v2/acme/web/blobs/uploads/4b1f0c2e-8a7d-4c55-9d1e-2f6a3b7c9e10?digest=sha256%3Ad4c1a7b2e9f05c3a8b6e1d2f7a9c0b4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1": write tcp 172.17.0.2:51234->140.82.113.33:443: write: connection reset by peer',
    '------',
    ' > exporting to image:',
    '------',
    'ERROR: failed to build: failed to solve: failed to push ghcr.io/acme/web:1.4.0: failed to copy: failed to do request: Put "https://ghcr.io/v2/acme/web/blobs/uploads/4b1f0c2e-8a7d-4c55-9d1e-2f6a3b7c9e10?digest=sha256%3Ad4c1a7b2e9f05c3a8b6e1d2f7a9c0b4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1": write tcp 172.17.0.2:51234->140.82.113.33:443: write: connection reset by peer',
  ],
  'registry-502': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 CACHED',
    '',
    '#9 [build 5/6] COPY . .',
    '#9 DONE 0.1s',
    '',
    '#10 [build 6/6] RUN go build -o /out/app ./cmd/app',
    '#10 DONE 41.3s',
    '',
    '#11 exporting to image',
    '#11 exporting layers 1.8s done',
    '#11 exporting manifest sha256:3c0b8b1f6f43a1b2e0b5f7c0c1b9b0f4e0f3f1d8a7c6b5a4f3e2d1c0b9a8f7e6 done',
    '#11 exporting config sha256:7e1f7c1e2d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 done',
    '#11 naming to registry.example.com/acme/api:2.3.1 done',
    '#11 pushing layers',
    '#11 ...',
    '',
    '#11 exporting to image',
    '#11 pushing layers 9.7s done',
    '#11 pushing manifest for registry.example.com/acme/api:2.3.1@sha256:5f2e4d6c8b0a1f3e5d7c9b1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e',
    '#11 ERROR: failed to push registry.example.com/acme/api:2.3.1: unexpected status from PUT request to https://registry.example.com/v2/acme/api/manifests/2.3.1: 502 Bad Gateway',
    '------',
    ' > exporting to image:',
    '------',
    'ERROR: failed to build: failed to solve: failed to push registry.example.com/acme/api:2.3.1: unexpected status from PUT request to https://registry.example.com/v2/acme/api/manifests/2.3.1: 502 Bad Gateway',
  ],
  'user-run-exit': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 3.482 go: downloading github.com/spf13/cobra v1.8.1',
    '#8 3.490 go: downloading github.com/prometheus/client_golang v1.20.5',
    '#8 12.41 go: github.com/prometheus/client_golang@v1.20.5: Get "https://proxy.golang.org/github.com/prometheus/client_golang/@v/v1.20.5.zip": read tcp 172.17.0.3:41234->142.250.74.81:443: read: connection reset by peer',
    '#8 ERROR: process "/bin/sh -c go mod download" did not complete successfully: exit code: 1',
    '------',
    ' > [build 4/6] RUN go mod download:',
    '3.482 go: downloading github.com/spf13/cobra v1.8.1',
    '3.490 go: downloading github.com/prometheus/client_golang v1.20.5',
    '12.41 go: github.com/prometheus/client_golang@v1.20.5: Get "https://proxy.golang.org/github.com/prometheus/client_golang/@v/v1.20.5.zip": read tcp 172.17.0.3:41234->142.250.74.81:443: read: connection reset by peer',
    '------',
    'Dockerfile:6',
    '--------------------',
    '   4 |     WORKDIR /src',
    '   5 |     COPY go.mod go.sum ./',
    '   6 | >>> RUN go mod download',
    '   7 |     COPY . .',
    '   8 |     RUN go build -o /out/app ./cmd/app',
    '--------------------',
    'ERROR: failed to build: failed to solve: process "/bin/sh -c go mod download" did not complete successfully: exit code: 1',
  ],
  'registry-401': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 CACHED',
    '',
    '#9 [build 5/6] COPY . .',
    '#9 DONE 0.1s',
    '',
    '#10 [build 6/6] RUN go build -o /out/app ./cmd/app',
    '#10 DONE 41.3s',
    '',
    '#11 exporting to image',
    '#11 exporting layers 1.8s done',
    '#11 exporting manifest sha256:3c0b8b1f6f43a1b2e0b5f7c0c1b9b0f4e0f3f1d8a7c6b5a4f3e2d1c0b9a8f7e6 done',
    '#11 exporting config sha256:7e1f7c1e2d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 done',
    '#11 naming to docker.io/acme/api:latest done',
    '#11 pushing layers',
    '#11 ...',
    '',
    '#12 [auth] acme/api:pull,push token for registry-1.docker.io',
    '#12 DONE 0.0s',
    '',
    '#11 exporting to image',
    '#11 ERROR: failed to push docker.io/acme/api:latest: failed to authorize: failed to fetch oauth token: unexpected status from POST request to https://auth.docker.io/token: 401 Unauthorized',
    '------',
    ' > exporting to image:',
    '------',
    'ERROR: failed to build: failed to solve: failed to push docker.io/acme/api:latest: failed to authorize: failed to fetch oauth token: unexpected status from POST request to https://auth.docker.io/token: 401 Unauthorized',
  ],
  'unknown': [
    '#0 building with "rb-7f3a2c" instance using remote driver',
    '',
    '#1 [internal] load build definition from Dockerfile',
    '#1 transferring dockerfile: 612B done',
    '#1 DONE 0.0s',
    '',
    '#2 [internal] load metadata for docker.io/library/golang:1.23-alpine',
    '#2 DONE 0.9s',
    '',
    '#3 [internal] load .dockerignore',
    '#3 transferring context: 2B done',
    '#3 DONE 0.0s',
    '',
    '#4 [build 1/6] FROM docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898',
    '#4 resolve docker.io/library/golang:1.23-alpine@sha256:9a425d78a8257fc92d41ad979d38cb54005bac3fdefbdadde868e004eccbb898 done',
    '#4 DONE 0.1s',
    '',
    '#5 [internal] load build context',
    '#5 transferring context: 48.21kB 0.0s done',
    '#5 DONE 0.0s',
    '',
    '#6 [build 2/6] WORKDIR /src',
    '#6 CACHED',
    '',
    '#7 [build 3/6] COPY go.mod go.sum ./',
    '#7 CACHED',
    '',
    '#8 [build 4/6] RUN go mod download',
    '#8 CACHED',
    '',
    '#9 [build 5/6] COPY . .',
    '#9 DONE 0.1s',
    '',
    '#10 [build 6/6] RUN go build -o /out/app ./cmd/app',
    '#10 DONE 41.3s',
    '',
    '#11 exporting to image',
    '#11 exporting layers 2.3s done',
    'ERROR: failed to build: failed to solve: ResourceExhausted: grpc: received message larger than max (4563291 vs. 4194304)',
  ],
};

const fixture = (name: string): string => lines(...(FIXTURES[name] as string[]));

type Row = [name: string, kind: BuildFailureKind, reason: RegExp, output: string];

// prettier-ignore
const INFRASTRUCTURE: Row[] = [
  // https://github.com/docker/buildx/issues/2380 (buildkit client/solve.go:386 "failed to receive status", grpc-go internal/transport/http2_client.go:1759)
  ['stream EOF', 'infrastructure', /builder was lost \(error reading from server: EOF\)/, lines('ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF')],
  // https://github.com/docker/build-push-action/issues/993 (as docker's action echoes it)
  ['stream EOF echoed by the action', 'infrastructure', /error reading from server: EOF/, lines('ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF', 'Error: buildx failed with: ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF')],
  // https://github.com/docker/buildx/issues/2789 (grpc-go internal/transport/http2_client.go:1083 "received prior goaway")
  ['graceful stop GOAWAY', 'infrastructure', /gRPC GOAWAY/, lines('#12 exporting to image', 'ERROR: failed to receive status: rpc error: code = Unavailable desc = closing transport due to: connection error: desc = "error reading from server: EOF", received prior goaway: code: NO_ERROR, debug data: "graceful_stop"')],
  // https://github.com/moby/buildkit/issues/3576 (preparing inline cache when the builder died)
  ['builder died at inline cache', 'infrastructure', /builder was lost/, lines('#19 preparing layers for inline cache', 'WARNING: buildx: git was not found in the system. Current commit information was not captured by the build', 'ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF')],
  // https://github.com/moby/buildkit/issues/1222 (grpc-go internal/transport/transport.go:820 ErrConnClosing; buildx < 0.9 printed "error: ")
  ['transport is closing', 'infrastructure', /transport is closing/, lines('#26 DONE 0.2s', 'error: failed to receive status: rpc error: code = Unavailable desc = transport is closing')],
  // https://github.com/moby/buildkit/issues/1222 (buildkit client/solve.go:374 "failed to get status")
  ['dial failure at start', 'infrastructure', /could not connect to the builder/, lines('error: failed to get status: rpc error: code = Unavailable desc = all SubConns are in TransientFailure, latest connection error: connection error: desc = "transport: error while dialing: dial unix /run/buildkit/buildkitd.sock: connect: no such file or directory"')],
  // grpc-go internal/transport/http2_client.go:230 "transport: Error while dialing"; buildx commands/build.go "failed to build"
  ['builder refused the connection', 'infrastructure', /could not connect to the builder \(connection refused\)/, lines('#10 [build 6/6] RUN go build -o /out/app ./cmd/app', 'ERROR: failed to build: failed to receive status: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.20.0.7:1234: connect: connection refused"')],
  // https://github.com/docker/buildx/pull/2130 sample output (driver/remote/driver.go Bootstrap: 20 s timeout), tty progress
  ['remote driver bootstrap timeout (tty)', 'infrastructure', /gave up waiting for the builder/, lines('[+] Building 20.0s (1/1) FINISHED', ' => ERROR [internal] waiting for connection                                   20.0s', '------', ' > [internal] waiting for connection:', '------', 'ERROR: context deadline exceeded')],
  // docker/buildx driver/remote/driver.go:51-54 + commands/build.go "failed to build" (buildx >= 0.25), plain progress
  ['remote driver bootstrap timeout (plain)', 'infrastructure', /gave up waiting for the builder/, lines('#0 building with "rb-7f3a2c" instance using remote driver', '', '#1 [internal] waiting for connection', '#1 ERROR: context deadline exceeded', '------', ' > [internal] waiting for connection:', '------', 'ERROR: failed to build: context deadline exceeded')],
  // https://github.com/moby/buildkit/issues/4327 (buildkit util/grpcerrors/grpcerrors.go:275 "<Code>: <msg>")
  ['DeadlineExceeded', 'infrastructure', /gRPC DeadlineExceeded/, lines('ERROR: failed to solve: DeadlineExceeded: context deadline exceeded')],
  // buildkit util/grpcerrors/grpcerrors.go:275 decoding a gRPC Unavailable status
  ['Unavailable status decoded by buildkit', 'infrastructure', /gRPC Unavailable/, lines(build('Unavailable: connection error: desc = "transport: authentication handshake failed: EOF"'))],
  // https://github.com/docker/buildx/issues/456 (buildkit session/manager.go:173 "no active session for %s"), only the step line
  ['session dropped', 'infrastructure', /session with the builder dropped/, lines('#25 exporting manifest list sha256:cbf719abf8d8c678350283152e91f9f49c1138e0087758eeaa67f6697ae4dfda', '#25 ERROR: no active session for os44n22472jqaz3bk2t3jktq2: context deadline exceeded')],
  // buildkit session/session.go:114 "failed to dial gRPC"
  ['session dial', 'infrastructure', /failed to dial gRPC/, lines(build('failed to dial gRPC: context deadline exceeded'))],
  // buildx driver/driver.go:107 "failed to bootstrap %T driver in attempts"
  ['bootstrap attempts', 'infrastructure', /could not reach the builder/, lines('ERROR: failed to build: failed to bootstrap *remote.Driver driver in attempts')],
  // fixture stream-lost (buildkit client/solve.go:386 wrapped by buildx commands/build.go)
  ['fixture stream-lost', 'infrastructure', /builder was lost/, fixture('stream-lost')],
  // https://github.com/docker/build-push-action/issues/239 (containerd v1.6.0 remotes/errors/errors.go:36 "unexpected status: %s"), bare line of buildx < 0.5
  ['502 on push, bare old line', 'infrastructure', /HTTP 502 Bad Gateway/, lines('#39 exporting config sha256:8a7e57de25f6e1357ba394e101ff2281ea5aac2ca4cfbf2eec7cc6dbaf4bfb3f done', 'failed to solve: rpc error: code = Unknown desc = unexpected status: 502 Bad Gateway')],
  // https://github.com/docker/build-push-action/issues/334 (as the action echoes it)
  ['503 on push, echoed', 'infrastructure', /HTTP 503 Service Unavailable/, lines('buildx call failed with: error: failed to solve: rpc error: code = Unknown desc = unexpected status: 503 Service Unavailable')],
  // containerd core/remotes/errors/errors.go:43 "unexpected status from %s request to %s: %s"
  ['503 on blob upload', 'infrastructure', /HTTP 503 Service Unavailable while pushing/, lines(build('failed to push registry.example.com/acme/api:1.4.0: unexpected status from PUT request to https://registry.example.com/v2/acme/api/blobs/uploads/5b1c9e2a?digest=sha256%3A1f2e: 503 Service Unavailable'))],
  // buildkit client/llb/sourceresolver/imageresolver.go:51 + containerd core/remotes/errors/errors.go:43 (HEAD of a base image)
  ['504 on HEAD of the base image', 'infrastructure', /HTTP 504 Gateway Timeout while pulling/, lines('Dockerfile:1', '--------------------', '   1 | >>> FROM node:20-alpine', '   2 |     WORKDIR /app', '--------------------', build('node:20-alpine: failed to resolve source metadata for docker.io/library/node:20-alpine: unexpected status from HEAD request to https://registry-1.docker.io/v2/library/node/manifests/20-alpine: 504 Gateway Timeout'))],
  // https://github.com/docker/build-push-action/issues/334 (the auth server closed the connection)
  ['EOF from the token server', 'infrastructure', /closed the connection \(unexpected EOF\)/, lines('buildx call failed with: error: failed to solve: rpc error: code = Unknown desc = failed to fetch oauth token: Get https://auth.docker.io/token?scope=repository%3Abiznetgio%2Fknot-exporter%3Apull%2Cpush&service=registry.docker.io: EOF')],
  // https://github.com/docker/buildx/issues/298 (bare line of old buildx)
  ['reset while pulling', 'infrastructure', /reset while pulling \(connection reset by peer\)/, lines('failed to solve: rpc error: code = Unknown desc = failed to copy: read tcp 172.17.0.2:47038->173.194.214.128:443: read: connection reset by peer')],
  // https://github.com/moby/buildkit/issues/2713
  ['reset while pushing', 'infrastructure', /reset while pushing/, lines('buildx failed with: error: failed to solve: failed to copy: failed to do request: Put "https://cr.brightbox.com/v2/blobhere": write tcp 172.17.0.2:48736->109.107.38.167:443: write: connection reset by peer')],
  // fixture push-reset (containerd core/remotes/docker/resolver.go:719 "failed to do request", core/content/helpers.go:245 "failed to copy")
  ['fixture push-reset', 'infrastructure', /reset while pushing/, fixture('push-reset')],
  // https://github.com/keymanapp/keyman/issues/10774
  ['read timed out', 'infrastructure', /timed out/, lines('#14 exporting to docker image format', '#14 ERROR: failed to copy: read tcp 172.17.0.2:40974->20.209.163.1:443: read: connection timed out', '------', ' > exporting to docker image format:', '------', 'ERROR: failed to solve: failed to copy: read tcp 172.17.0.2:40974->20.209.163.1:443: read: connection timed out')],
  // Go net "i/o timeout" dialing the registry during a push (containerd core/remotes/docker/resolver.go:719)
  ['i/o timeout while pushing', 'infrastructure', /timed out while pushing \(i\/o timeout\)/, lines(build('failed to push ghcr.io/acme/web:sha-1a2b3c4: failed to do request: Put "https://ghcr.io/v2/acme/web/blobs/uploads/0e5c?digest=sha256%3A9d": dial tcp 140.82.112.34:443: i/o timeout'))],
  // golang/go src/net/http/transport.go "net/http: TLS handshake timeout"
  ['TLS handshake timeout', 'infrastructure', /TLS handshake timed out while pulling/, lines(build('golang:1.22: failed to resolve source metadata for docker.io/library/golang:1.22: failed to do request: Head "https://registry-1.docker.io/v2/library/golang/manifests/1.22": net/http: TLS handshake timeout'))],
  // golang/go src/net/http/transport.go "net/http: request canceled while waiting for connection"
  ['request canceled while waiting for connection', 'infrastructure', /did not answer in time while pulling/, lines('ERROR: failed to solve: python:3.12-slim: failed to resolve source metadata for docker.io/library/python:3.12-slim: failed to do request: Head "https://registry-1.docker.io/v2/library/python/manifests/3.12-slim": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)')],
  // golang.org/x/sys unix/zerrors_linux_amd64.go:744 EPIPE "broken pipe"
  ['broken pipe while pushing', 'infrastructure', /broke while pushing \(broken pipe\)/, lines(build('failed to push quay.io/acme/worker:2.0.1: failed to copy: failed to do request: Put "https://quay.io/v2/acme/worker/blobs/uploads/77aa?digest=sha256%3A0b": write tcp 10.1.0.4:40412->34.224.3.1:443: write: broken pipe'))],
  // containerd core/content/helpers.go:228 "failed commit on ref %q"
  ['unexpected EOF on blob upload', 'infrastructure', /closed the connection while pushing \(unexpected EOF\)/, lines(build('failed to push quay.io/acme/worker:2.0.1: failed commit on ref "layer-sha256:9f5c2b7a1e": unexpected EOF'))],
  // golang.org/x/net http2/transport_common.go:424 (vendored in buildkit)
  ['HTTP/2 GOAWAY from the registry', 'infrastructure', /HTTP\/2 connection \(GOAWAY\) while pushing/, lines(build('failed to push ghcr.io/acme/web:1.4.0: failed to copy: failed to do request: Put "https://ghcr.io/v2/acme/web/blobs/uploads/1c?digest=sha256%3A2d": http2: server sent GOAWAY and closed the connection; LastStreamID=1999, ErrCode=NO_ERROR, debug=""'))],
  // fixture registry-502
  ['fixture registry-502', 'infrastructure', /HTTP 502 Bad Gateway while pushing/, fixture('registry-502')],
  // buildkit source/http/source.go:462 "invalid response status %d" (ADD <url>)
  ['ADD URL 502', 'infrastructure', /ADD URL answered HTTP 502/, lines('ERROR: failed to solve: invalid response status 502')],
  // bake with several targets: buildx build/build.go:547 "target %s"
  ['bake target push 500', 'infrastructure', /HTTP 500 Internal Server Error while pushing/, lines('ERROR: target api: failed to solve: failed to push registry.example.com/acme/api:1: unexpected status from PUT request to https://registry.example.com/v2/acme/api/manifests/1: 500 Internal Server Error')]
];

// prettier-ignore
const USER: Row[] = [
  // https://github.com/sist2app/sist2/issues/423 (buildkit solver/llbsolver/ops/exec.go:555, frontend/gateway/pb/exit.go:41)
  ['RUN exit code', 'user', /RUN step failed with exit code 2/, lines('ERROR: failed to solve: process "/bin/sh -c cd build && make -j$(nproc)" did not complete successfully: exit code: 2')],
  // fixture user-run-exit: the RUN output says "connection reset by peer"; the exit code decides
  ['fixture user-run-exit', 'user', /RUN step failed with exit code 1/, fixture('user-run-exit')],
  // buildkit v0.8.0 solver/llbsolver/ops/exec.go:334 "executor failed running %v" (bare line of old buildx)
  ['old RUN exit code', 'user', /RUN step failed with exit code 1/, lines('failed to solve: rpc error: code = Unknown desc = executor failed running [/bin/sh -c npm ci]: exit code: 1')],
  // https://github.com/seia-soto/outline-server-multiarch/issues/10 (golang.org/x/sys unix/zerrors_linux_amd64.go:720 ENOEXEC)
  ['RUN of another architecture', 'user', /exit code 1 \(exec format error/, lines('#5 [linux/arm64 2/3] RUN apt-get update', '#5 0.105 exec /bin/sh: exec format error', '#5 ERROR: process "/bin/sh -c apt-get update" did not complete successfully: exit code: 1', '------', ' > [linux/arm64 2/3] RUN apt-get update:', '0.105 exec /bin/sh: exec format error', '------', build('process "/bin/sh -c apt-get update" did not complete successfully: exit code: 1'))],
  // ENOEXEC reported by runc when the image's binary is of another architecture
  ['exec format error from runc', 'user', /exec format error/, lines(build('failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec /usr/local/bin/entry: exec format error'))],
  // buildkit frontend/dockerfile/instructions/parse.go:167,176
  ['unknown instruction', 'user', /Dockerfile is invalid/, lines('Dockerfile:4', '--------------------', '   3 |     WORKDIR /app', '   4 | >>> RUNN npm ci', '--------------------', 'ERROR: failed to solve: dockerfile parse error on line 4: unknown instruction: RUNN')],
  // buildkit v0.8.0 frontend/dockerfile/instructions/parse.go:134 + builder/build.go:422 (old wording)
  ['old parse error', 'user', /Dockerfile is invalid/, lines('error: failed to solve: rpc error: code = Unknown desc = failed to solve with frontend dockerfile.v0: failed to create LLB definition: dockerfile parse error line 3: unknown instruction: COPPY')],
  // https://github.com/docker/docs/issues/18991 (buildkit frontend/dockerui/config.go:403)
  ['no Dockerfile', 'user', /Dockerfile was not found/, lines('ERROR: failed to solve: failed to read dockerfile: open /var/lib/docker/tmp/buildkit-mount3577758206/Dockerfile: no such file or directory')],
  // https://github.com/docker/buildx/issues/514
  ['no Dockerfile (old)', 'user', /Dockerfile was not found/, lines('error: failed to solve: rpc error: code = Unknown desc = failed to solve with frontend dockerfile.v0: failed to read dockerfile: open /tmp/buildkit-mount946775422/dockfile: no such file or directory')],
  // buildkit frontend/dockerfile/parser/parser.go "file with no instructions"
  ['empty Dockerfile', 'user', /Dockerfile is invalid/, lines('ERROR: failed to build: failed to solve: file with no instructions')],
  // https://github.com/nickpending/mcp-recon/issues/1 (buildkit solver/llbsolver/ops/opsutils/contenthash.go:60, solver/edge.go:916)
  ['COPY of a missing file', 'user', /missing from the build context/, lines('ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref 96f8e948-8d3e-4051-998a-f354ef0fde2f::nz4ef33ak2rv2mpfwwvt8w2a1: "/go.sum": not found')],
  // https://github.com/edusense/edusense/issues/42 (older buildkit wording)
  ['COPY --from of a missing file (old)', 'user', /missing from the build context/, lines(' > [stage-1 5/9] COPY --from=builder /app/build/examples/edusense/edusense.bin /app:', 'failed to compute cache key: "/app/build/examples/edusense/edusense.bin" not found: not found')],
  // https://github.com/docker/build-push-action/issues/937 (buildkit cache/contenthash/checksum.go:1078 "failed to walk")
  ['COPY of a missing folder', 'user', /missing from the build context/, lines('buildx failed with: ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref sskfjkf86ntslfbvad7pfphx5::rf06xaafkysvr9wmnmknn2uff: failed to walk /tmp/buildkit-mount3059587245/config: lstat /tmp/buildkit-mount3059587245/config: no such file or directory')],
  // https://github.com/insightsengineering/ci-images/pull/91 (containerd core/remotes/errors/errors.go:43)
  ['403 on push', 'user', /denied access while pushing/, lines('ERROR: failed to solve: failed to push ghcr.io/insightsengineering/debian-gcc-devel:2023.12.07: unexpected status from POST request to https://ghcr.io/v2/insightsengineering/debian-gcc-devel/blobs/uploads/: 403 Forbidden')],
  // https://github.com/docker/build-push-action/issues/687
  ['403 on push (old wording)', 'user', /denied access/, lines('#32 exporting to image', '#32 pushing layers 1.5s done', '#32 ERROR: unexpected status: 403 Forbidden', '------', ' > exporting to image:', '------', 'ERROR: failed to solve: unexpected status: 403 Forbidden', 'Error: buildx failed with: ERROR: failed to solve: unexpected status: 403 Forbidden')],
  // https://github.com/docker/buildx/issues/3335 (buildkit util/resolver/authorizer.go:384)
  ['401 fetching the token', 'user', /rejected the credentials \(401 Unauthorized\)/, lines('ERROR: failed to build: failed to solve: failed to fetch oauth token: unexpected status from GET request to https://auth.docker.io/token?scope=*****pull%2Cpush&service=registry.docker.io: 401 Unauthorized')],
  // fixture registry-401 (containerd core/remotes/docker/resolver.go:696 "failed to authorize", authorizer.go:311)
  ['fixture registry-401', 'user', /rejected the credentials while pushing/, fixture('registry-401')],
  // https://github.com/soulteary/docker-prompt-generator/issues/20 (containerd core/remotes/docker/resolver.go:336)
  ['pull access denied', 'user', /access denied/, lines(' => ERROR [internal] load metadata for docker.io/soulteary/prompt-generator:base                                   3.3s', '------', ' > [internal] load metadata for docker.io/soulteary/prompt-generator:base:', '------', 'ERROR: failed to solve: soulteary/prompt-generator:base: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed')],
  // https://github.com/mondoohq/installer/issues/487 (containerd core/remotes/docker/pusher.go:236)
  ['push access denied', 'user', /access denied/, lines('Error: buildx failed with: ERROR: failed to solve: failed to push mondoo/devkit:11.28.1: push access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed')],
  // https://github.com/ilteoood/docker_buildx/issues/7 (containerd core/remotes/docker/authorizer.go:376 "server message: %s")
  ['insufficient_scope', 'user', /denied access/, lines('#31 pushing layers 0.3s done', '#31 ERROR: server message: insufficient_scope: authorization failed', '------', ' > exporting to image:', '------', 'failed to solve: rpc error: code = Unknown desc = server message: insufficient_scope: authorization failed')],
  // distribution registry/api/errcode/register.go:52 DENIED, errors.go:27 lower-cased code
  ['denied', 'user', /denied access while pushing/, lines(build('failed to push docker.io/acme/app:1: denied: requested access to the resource is denied'))],
  // containerd core/remotes/docker/resolver.go:490 "%s: %w" with errdefs.ErrNotFound
  ['base image tag not found', 'user', /does not exist \(not found\)/, lines(build('node:99-alpine: failed to resolve source metadata for docker.io/library/node:99-alpine: docker.io/library/node:99-alpine: not found'))],
  // distribution registry/api/errcode/register.go:147 MANIFEST_UNKNOWN
  ['manifest unknown', 'user', /does not exist/, lines(build('ghcr.io/acme/base:2024.1: failed to resolve source metadata for ghcr.io/acme/base:2024.1: manifest unknown: manifest unknown'))],
  // containerd core/images/handlers.go:342 "no match for platform in manifest"
  ['no variant for the platform', 'user', /no variant for the requested platform/, lines(build('acme/tool:1.0: failed to resolve source metadata for docker.io/acme/tool:1.0: no match for platform in manifest: not found'))],
  // buildkit source/http/source.go:462 (ADD <url> answered 404)
  ['ADD URL 404', 'user', /does not exist/, lines('ERROR: failed to solve: invalid response status 404')],
  // buildx build/opt.go:414 "invalid tag %q" + distribution/reference reference.go:58 (vendored)
  ['invalid tag', 'user', /option of the build is invalid/, lines('ERROR: failed to build: invalid tag "ghcr.io/Acme/App:latest": repository name must be lowercase')],
  // distribution/reference reference.go:49 ErrReferenceInvalidFormat (vendored in buildx)
  ['invalid reference format', 'user', /option of the build is invalid/, lines('ERROR: failed to build: invalid tag "acme/app:": invalid reference format')],
  // docker/cli cli/cobra.go:85 FlagErrorFunc + spf13/pflag errors.go:40 (no ERROR: prefix)
  ['unknown flag', 'user', /option of the build is invalid/, lines('unknown flag: --platfrom', '', 'Usage:  docker buildx build [OPTIONS] PATH | URL | -', '', "Run 'docker buildx build --help' for more information")],
  // spf13/pflag errors.go:116 "invalid argument %q for %q flag: %v"
  ['invalid flag value', 'user', /option of the build is invalid/, lines('invalid argument "true,false" for "--pull" flag: strconv.ParseBool: parsing "true,false": invalid syntax', '', 'Usage:  docker buildx build [OPTIONS] PATH | URL | -')],
  // buildkit frontend/dockerfile/dockerfile2llb/convert.go:450 + containerd/platforms platforms.go:328
  ['bad FROM --platform', 'user', /option of the build is invalid/, lines(build('failed to parse platform linux/am64: "linux/am64": unknown operating system or architecture: invalid argument'))],
  // hashicorp/hcl diagnostic.go:102 + pos.go:130 (vendored in buildx), buildx bake/hcl.go formatHCLError
  ['bake HCL error', 'user', /bake definition is invalid/, lines('ERROR: docker-bake.hcl:7,3-6: Unsupported argument; An argument named "tag" is not expected here. Did you mean "tags"?')],
  // buildx bake/bake.go:800 "failed to find target %s"
  ['bake unknown target', 'user', /bake definition is invalid/, lines('ERROR: failed to find target webapp')],
  // buildx commands/bake.go:217
  ['no bake file', 'user', /bake definition is invalid/, lines("ERROR: couldn't find a bake definition")]
];

// prettier-ignore
const UNKNOWN: Row[] = [
  // fixture unknown (grpc-go rpc_util.go:798 "grpc: received message larger than max")
  ['fixture unknown', 'unknown', /not a known infrastructure failure/, fixture('unknown')],
  // https://github.com/tbistr/texlive-full-devcontainer/issues/7
  ['unlazy requires an applier', 'unknown', /not a known infrastructure failure/, lines('ERROR: failed to solve: failed to compute cache key: unlazy requires an applier')],
  // distribution registry/api/errcode/register.go:70 TOOMANYREQUESTS; containerd v1.6.0 remotes/docker/fetcher.go:187 wording
  ['Docker Hub rate limit', 'unknown', /rate-limited/, lines('ERROR: failed to solve: node:20: failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/node/manifests/sha256:2b7f: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit')],
  // buildkit util/grpcerrors/grpcerrors.go:275 with codes.Canceled (the job was cancelled)
  ['cancelled', 'unknown', /canceled/, lines('#9 [build 5/6] COPY . .', '#9 CANCELED', 'ERROR: failed to build: failed to solve: Canceled: context canceled')],
  // golang.org/x/sys unix/zerrors_linux_amd64.go:740 ENOSPC
  ['disk full', 'unknown', /out of disk space/, lines(build('failed to copy files: copy file range failed: no space left on device'))],
  // golang/go src/net/net.go errNoSuchHost: a registry name that does not resolve (typo or DNS), not retried
  ['registry host not found', 'unknown', /could not be reached while pushing/, lines(build('failed to push registry.internal.example/acme/app:1: failed to do request: Head "https://registry.internal.example/v2/acme/app/blobs/sha256:5e": dial tcp: lookup registry.internal.example on 10.0.0.2:53: no such host'))],
  // a message no rule knows
  ['unrecognised ERROR line', 'unknown', /not a known infrastructure failure/, lines('ERROR: failed to build: something nobody has seen before')],
  // no ERROR line at all (e.g. buildx killed by a signal)
  ['no error line', 'unknown', /no error line/, lines('#1 [internal] load build definition from Dockerfile', '#1 transferring dockerfile: 612B done', '#1 DONE 0.0s', 'Killed')]
];

/** The two reasons given when no rule matched any line. */
const NO_RULE = /^the error buildx printed is not a known infrastructure failure$|^buildx printed no error line$/;

/** Lines of an output as the classifier reports them (trailing spaces trimmed). */
const outputLines = (output: string): string[] => output.split('\n').map(l => l.trimEnd());

describe('classifyBuildFailure', () => {
  test.each([...INFRASTRUCTURE, ...USER, ...UNKNOWN])('[%#] %s → %s', (_name, kind, reason, output) => {
    const got = classifyBuildFailure(output);
    expect(got.kind).toBe(kind);
    expect(got.reason).toMatch(reason);
    // The line of the rule that decided, one of the output's; none when no rule did.
    if (NO_RULE.test(got.reason)) expect(got.line).toBeUndefined();
    else expect(outputLines(output)).toContain(got.line);
  });

  test('a RUN step that fails after a network error is the user’s; its output never decides', () => {
    const out = lines(
      '#7 [3/4] RUN curl -fsSL https://downloads.example.com/tool.tar.gz -o /tmp/tool.tgz',
      '#7 2.874 curl: (56) OpenSSL SSL_read: error:0A000126:SSL routines::unexpected eof while reading, errno 0',
      '#7 2.875 read tcp 172.17.0.3:41234->93.184.216.34:443: read: connection reset by peer',
      '#7 2.876 rpc error: code = Unavailable desc = error reading from server: EOF',
      '#7 2.877 ERROR: failed to receive status: transport is closing',
      '#7 ERROR: process "/bin/sh -c curl -fsSL https://downloads.example.com/tool.tar.gz -o /tmp/tool.tgz" did not complete successfully: exit code: 56',
      '------',
      ' > [3/4] RUN curl -fsSL https://downloads.example.com/tool.tar.gz -o /tmp/tool.tgz:',
      '2.875 read tcp 172.17.0.3:41234->93.184.216.34:443: read: connection reset by peer',
      '2.877 ERROR: failed to receive status: transport is closing',
      '------',
      build(
        'process "/bin/sh -c curl -fsSL https://downloads.example.com/tool.tar.gz -o /tmp/tool.tgz" did not complete successfully: exit code: 56'
      )
    );
    expect(classifyBuildFailure(out)).toEqual({
      kind: 'user',
      reason: 'a RUN step failed with exit code 56',
      line: build(
        'process "/bin/sh -c curl -fsSL https://downloads.example.com/tool.tar.gz -o /tmp/tool.tgz" did not complete successfully: exit code: 56'
      )
    });
  });

  test('the same network error on buildx’s own line is infrastructure', () => {
    const got = classifyBuildFailure(
      lines(build('failed to copy: read tcp 172.17.0.3:41234->93.184.216.34:443: read: connection reset by peer'))
    );
    expect(got.kind).toBe('infrastructure');
  });

  test('a quoted RUN command cannot make a user error look like infrastructure', () => {
    const got = classifyBuildFailure(
      lines(
        build(
          'process "/bin/sh -c echo 502 Bad Gateway; echo connection reset by peer; exit 3" did not complete successfully: exit code: 3'
        )
      )
    );
    expect(got).toMatchObject({kind: 'user', reason: 'a RUN step failed with exit code 3'});
  });

  test('bake: a user error in one target wins over an infrastructure error in another', () => {
    const out = lines(
      '#14 [api 4/5] RUN npm run build',
      '#14 ERROR: process "/bin/sh -c npm run build" did not complete successfully: exit code: 1',
      '#21 [web] exporting to image',
      '#21 ERROR: failed to push ghcr.io/acme/web:1.0.0: unexpected status from PUT request to https://ghcr.io/v2/acme/web/manifests/1.0.0: 502 Bad Gateway',
      'ERROR: target web: failed to solve: failed to push ghcr.io/acme/web:1.0.0: unexpected status from PUT request to https://ghcr.io/v2/acme/web/manifests/1.0.0: 502 Bad Gateway'
    );
    expect(classifyBuildFailure(out)).toEqual({
      kind: 'user',
      reason: 'a RUN step failed with exit code 1',
      line: '#14 ERROR: process "/bin/sh -c npm run build" did not complete successfully: exit code: 1'
    });
  });

  test('the final ERROR line decides over the steps when neither is the user’s', () => {
    const out = lines(
      '#11 ERROR: failed to copy: read tcp 10.0.0.2:1->10.0.0.3:443: read: connection reset by peer',
      'ERROR: failed to build: failed to solve: Canceled: context canceled'
    );
    expect(classifyBuildFailure(out)).toMatchObject({kind: 'unknown', reason: 'the build was canceled'});
  });

  test('a step line decides when the final line is not recognised', () => {
    const out = lines(
      '#11 ERROR: failed to copy: read tcp 10.0.0.2:1->10.0.0.3:443: read: connection reset by peer',
      'ERROR: failed to build: something new'
    );
    expect(classifyBuildFailure(out)).toMatchObject({
      kind: 'infrastructure',
      line: '#11 ERROR: failed to copy: read tcp 10.0.0.2:1->10.0.0.3:443: read: connection reset by peer'
    });
  });

  test('without an ERROR line, RUN output and the error box still never decide', () => {
    const out = lines(
      '#8 [build 4/6] RUN go mod download',
      '#8 12.41 go: github.com/a/b@v1.0.0: Get "https://proxy.golang.org/github.com/a/b/@v/v1.0.0.zip": read tcp 172.17.0.3:41234->142.250.74.81:443: read: connection reset by peer',
      '------',
      ' > [build 4/6] RUN go mod download:',
      '12.41 ERROR: unexpected status: 502 Bad Gateway',
      '------',
      'Dockerfile:6',
      '--------------------',
      '   6 | >>> RUN go mod download || echo "ERROR: 503 Service Unavailable"',
      '--------------------',
      'Terminated'
    );
    expect(classifyBuildFailure(out)).toEqual({kind: 'unknown', reason: 'buildx printed no error line'});
  });

  test('bare lines only count when buildx printed no ERROR line', () => {
    const bare = 'failed to solve: rpc error: code = Unknown desc = unexpected status: 502 Bad Gateway';
    expect(classifyBuildFailure(lines(bare)).kind).toBe('infrastructure');
    expect(classifyBuildFailure(lines(bare, 'ERROR: failed to build: something new')).kind).toBe('unknown');
  });

  test(`only the last ${BUILD_FAILURE_TAIL_LINES} lines are read`, () => {
    const decisive =
      'ERROR: failed to receive status: rpc error: code = Unavailable desc = error reading from server: EOF';
    const filler = (n: number): string[] => Array.from({length: n}, (_, i) => `#3 ${i}.000 log line ${i}`);
    expect(classifyBuildFailure(lines(decisive, ...filler(BUILD_FAILURE_TAIL_LINES - 2))).kind).toBe('infrastructure');
    expect(classifyBuildFailure(lines(decisive, ...filler(BUILD_FAILURE_TAIL_LINES))).kind).toBe('unknown');
  });

  test('colours, CRLF and GitHub log timestamps are ignored', () => {
    const out = [
      '2026-08-20T10:00:01.1234567Z #12 exporting to image',
      '2026-08-20T10:00:02.7654321Z \x1b[31mERROR: failed to receive status: rpc error: code = Unavailable desc = transport is closing\x1b[0m',
      ''
    ].join('\r\n');
    expect(classifyBuildFailure(out)).toEqual({
      kind: 'infrastructure',
      reason: 'the connection to the builder was lost (transport is closing)',
      line: 'ERROR: failed to receive status: rpc error: code = Unavailable desc = transport is closing'
    });
  });

  test('a huge line is clipped in the middle and still classified by its cause', () => {
    const cmd = 'x'.repeat(200_000);
    const got = classifyBuildFailure(
      lines(
        build(
          `failed to push ghcr.io/acme/${cmd}:1: unexpected status from PUT request to https://ghcr.io/v2/acme/${cmd}/manifests/1: 503 Service Unavailable`
        )
      )
    );
    expect(got.kind).toBe('infrastructure');
    expect(got.line?.length).toBeLessThan(9000);
  });

  // The rules are linear in the line (build-failure.ts): lines a build can print, where a rule's prefix repeats,
  // still classify by what follows. 200 such lines of 8000 characters took up to 43 s before, 0.1-0.4 s after.
  // prettier-ignore
  test.each<[string, string, BuildFailureKind, string]>([
    ['a run of path characters', `ERROR: ${'a/'.repeat(4000)} docker.io/library/app:1: not found`, 'user', 'an image, tag or URL does not exist (not found)'],
    ['a repeated RUN prefix', `ERROR: ${'process "'.repeat(900)}sh -c x" did not complete successfully: exit code: 3`, 'user', 'a RUN step failed with exit code 3'],
    ['a repeated dial prefix', `ERROR: ${'transport: Error while dialing '.repeat(260)}connection refused`, 'infrastructure', 'buildx could not connect to the builder (connection refused)'],
    ['a repeated copy prefix', `ERROR: ${'failed to copy '.repeat(530)}unexpected EOF`, 'infrastructure', 'the registry closed the connection while pulling (unexpected EOF)'],
    ['repeated URLs', `ERROR: ${'https://r.example/v2/x '.repeat(340)}https://r.example/v2/x": EOF`, 'infrastructure', 'the registry closed the connection (unexpected EOF)'],
    ['a repeated prefix and no cause', `ERROR: ${'failed to walk '.repeat(530)}`, 'unknown', 'the error buildx printed is not a known infrastructure failure']
  ])('a long line with %s is classified by its cause', (_name, line, kind, reason) => {
    expect(classifyBuildFailure(lines(Array(BUILD_FAILURE_TAIL_LINES).fill(line).join('\n')))).toMatchObject({kind, reason});
  });

  test('empty output', () => {
    expect(classifyBuildFailure('')).toEqual({kind: 'unknown', reason: 'buildx printed no error line'});
  });
});
