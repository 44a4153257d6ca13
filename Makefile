# chat — see README.md. Everything here needs only Go (and the module proxy);
# the ACP test also uses node and npm where they are installed.
GO       ?= go
BIN      := bin
FUZZTIME ?= 20s
# Flags for `make run`, e.g. make run ARGS='-p "hello"'
ARGS     ?=

.PHONY: build run demo test cross acp-client mcp-servers lsp-servers cover bench bench-old soak chaos lint mutants fuzz tidy-check no-replace release clean

# Without cgo: Landlock's helper (psx) would otherwise wrap every thread
# through libc, at 4 MB more memory; chat needs no C.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(STAMP)" -o $(BIN)/chat ./cmd/chat
	$(GO) build -o $(BIN)/demoserver ./cmd/demoserver

# chat's own exit status is not make's business: an unconfigured endpoint
# says what to do and must not end in a make error that reads like a
# failed build.
run: build
	@./$(BIN)/chat $(ARGS) || true

# A whole loop against the scripted demo server: no key, no real model.
demo: build
	./$(BIN)/demoserver -demo ./$(BIN)/chat

# Where make installed the ACP client library, its test must not skip.
test: acp-client mcp-servers lsp-servers cross
	CHAT_ACP_CLIENT_INSTALLED=$$([ -d $(ACP_CLIENT) ] && echo 1) \
	CHAT_MCP_SERVERS_INSTALLED=$$([ -d $(MCP_EVERYTHING) ] && echo 1) \
	CHAT_LSP_SERVERS_INSTALLED=$$([ -x $(GOPLS) ] && [ -d $(TSLS) ] && echo 1) $(GO) test -race ./...

# chat and its tests compile for macOS, the BSDs and 32-bit Linux too,
# where a field's type differs (a stat's mode, a statfs's flags) and
# Linux-only tests must say so: vet type-checks both, without running.
cross:
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=linux GOARCH=386 $(GO) vet ./...

# The ACP end-to-end test drives chat acp with the TypeScript client
# library editors use (testdata/acp, pinned by its package-lock.json);
# without node the test says so and skips.
ACP_CLIENT := testdata/acp/node_modules/@agentclientprotocol/sdk
acp-client:
	@if command -v node >/dev/null && command -v npm >/dev/null && [ ! -d $(ACP_CLIENT) ]; then \
		npm ci --prefix testdata/acp --no-audit --no-fund --loglevel=error; fi

# The MCP client is tested against the reference servers no one here
# wrote (testdata/mcp, pinned by its package-lock.json).
MCP_EVERYTHING := testdata/mcp/node_modules/@modelcontextprotocol/server-everything
mcp-servers:
	@if command -v node >/dev/null && command -v npm >/dev/null && [ ! -d $(MCP_EVERYTHING) ]; then \
		npm ci --prefix testdata/mcp --no-audit --no-fund --loglevel=error; fi

# The diagnostics tests run real language servers: gopls built from the
# module proxy (v0.23.0, the newest that builds with Go 1.26) and the
# TypeScript server from the npm registry (testdata/lsp, pinned by its
# package-lock.json). They live under testdata/lsp, not on PATH: only the
# tests that ask for them start them.
GOPLS := testdata/lsp/bin/gopls
TSLS  := testdata/lsp/node_modules/typescript-language-server
lsp-servers:
	@[ -x $(GOPLS) ] || GOBIN=$(CURDIR)/testdata/lsp/bin $(GO) install golang.org/x/tools/gopls@v0.23.0
	@if command -v node >/dev/null && command -v npm >/dev/null && [ ! -d $(TSLS) ]; then \
		npm ci --prefix testdata/lsp --no-audit --no-fund --loglevel=error; fi

# Coverage of the unit tests and of the binary the end-to-end tests run,
# merged: cover.out, and a per-function summary whose last line is the total.
COVERDIR := $(CURDIR)/.cover
cover:
	rm -rf $(COVERDIR) && mkdir -p $(COVERDIR)/unit $(COVERDIR)/e2e
	CHAT_COVERDIR=$(COVERDIR)/e2e $(GO) test -cover -coverpkg=./... ./... -args -test.gocoverdir=$(COVERDIR)/unit
	$(GO) tool covdata textfmt -i=$(COVERDIR)/unit,$(COVERDIR)/e2e -o cover.out
	$(GO) tool cover -func=cover.out | tail -1

# One table (bench/RESULTS.md): client cost per 1,000 streamed tokens, a
# whole turn, cancel latency (stream, tool, back-off), TUI cost per delta by
# transcript size and per keystroke, loading a 10,000-message session, and
# the real binary's CPU, wall time and peak RSS on a 20,000-chunk stream,
# start-up to a one-line answer, SIGINT to exit, and a shell command
# started directly against one in the sandbox, checkpoints (an
# unchanged 10,000-file tree, Go's source tree, restoring 100 files), and
# a 5,000-turn REPL session (RSS and keystroke latency along the way).
# The binary's figures sit beside curl's against the same server, and
# beside bench/before.txt (the same benchmarks on an earlier build).
# The binary benchmarks measure the last commit with forked modules
# (FORKS) beside this build, in turns: build=old and build=new.
FORKS ?= 67ee50a
bench-old:
	@mkdir -p $(BIN)
	@if [ ! -x $(BIN)/chat-forks ] && git cat-file -e $(FORKS) 2>/dev/null; then \
		rm -rf /tmp/chat-forks-tree && git worktree add -f -q /tmp/chat-forks-tree $(FORKS) && \
		(cd /tmp/chat-forks-tree && CGO_ENABLED=0 $(GO) build -o $(CURDIR)/$(BIN)/chat-forks ./cmd/chat); \
		git worktree remove --force /tmp/chat-forks-tree; fi

bench: bench-old lsp-servers
	@mkdir -p bench
	export CHAT_BENCH_OLD=$$([ -x $(BIN)/chat-forks ] && echo $(CURDIR)/$(BIN)/chat-forks); \
	{ $(GO) test -run='^$$' -bench=. -benchmem -count=5 ./llm ./agent ./session ./tui; \
	  $(GO) test -run='^$$' -bench=ShellTrue -benchtime=200x -count=5 ./tool/sandbox; \
	  $(GO) test -run='^$$' -bench=GitWatchIdle -benchtime=100x -count=5 ./tool/sandbox; \
	  $(GO) test -run='^$$' -bench=JobStart -benchtime=20x -count=5 ./tool; \
	  $(GO) test -run='^$$' -bench=BoxedTrue -benchtime=100x -count=5 ./tool; \
	  $(GO) test -run='^$$' -bench=. -benchtime=10x -count=5 ./tool/netproxy; \
	  $(GO) test -run='^$$' -bench=FixedPrompt -benchtime=3x -count=1 ./app; \
	  $(GO) test -run='^$$' -bench=. -benchtime=5x -count=5 ./checkpoint; \
	  $(GO) test -run='^$$' -bench="EditToDiagnostics|CheckWithoutServer" -benchtime=40x -count=5 ./tool/lsp; \
	  $(GO) test -run='^$$' -bench='Binary|TUI$$|TUIKeyAtLength' -benchtime=10x -count=5 ./cmd/chat; \
	  $(GO) test -run='^$$' -bench='TUILongSession' -benchtime=1x -count=1 -timeout=30m ./cmd/chat; \
	  $(GO) test -run='^$$' -bench='Serve' -benchtime=5x -count=3 ./cmd/chat; } | tee bench/raw.txt
	$(GO) run ./internal/benchtable -before bench/before.txt -o bench/RESULTS.md < bench/raw.txt

soak:
	SOAK_TURNS=1000 $(GO) test -count=1 -run "^TestSoak$$" -v ./agent

chaos: build
	CHAT_CHAOS_RUNS=100 $(GO) test -count=1 -run "^TestCrashChaos$$" -v ./cmd/chat

# staticcheck comes from the module proxy, at a pinned version.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Each mutant of docs/mutants/list.go applied to a copy of the tree: the
# tests of its own package must fail on it.
mutants:
	$(GO) run ./docs/mutants

lint: tidy-check no-replace
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Upstream modules only: a replace line breaks go install …@version and
# keeps security fixes from arriving (fixes for a dependency go to its
# project, prepared under docs/upstream/).
no-replace:
	@if grep -nE '^[[:space:]]*replace([[:space:]]|\()' go.mod; then \
		echo "go.mod has a replace line: use the upstream module (see docs/upstream/)"; exit 1; fi

# Static binaries for each platform, stamped with the version, the commit
# and the date (chat version prints them), and their SHA-256 sums, in dist/.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)
DATE      := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
VERSION_PKG := github.com/chatrepl/chat/internal/version
# The version, commit and date, from git (not Go's VCS stamping, which
# GOFLAGS=-buildvcs=false turns off): chat version says which build it is.
STAMP     = -X $(VERSION_PKG).stampVersion=$(VERSION) -X $(VERSION_PKG).stampCommit=$(COMMIT) -X $(VERSION_PKG).stampDate=$(DATE)
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
release:
	rm -rf dist && mkdir -p dist
	@for p in $(PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; \
		echo "dist/chat-$(VERSION)-$$os-$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
			-ldflags "-s -w $(STAMP)" \
			-o dist/chat-$(VERSION)-$$os-$$arch ./cmd/chat || exit 1; \
	done
	cd dist && sha256sum chat-* > SHA256SUMS && cat SHA256SUMS

tidy-check:
	@cp go.mod /tmp/chat-go.mod.bak && cp go.sum /tmp/chat-go.sum.bak
	@$(GO) mod tidy
	@if ! cmp -s go.mod /tmp/chat-go.mod.bak || ! cmp -s go.sum /tmp/chat-go.sum.bak; then \
		cp /tmp/chat-go.mod.bak go.mod; cp /tmp/chat-go.sum.bak go.sum; \
		echo "go mod tidy would change go.mod/go.sum"; exit 1; fi

# Each fuzz target for FUZZTIME; seeds live in testdata/fuzz of each package.
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzAssembler$$' -fuzztime=$(FUZZTIME) ./llm
	$(GO) test -run='^$$' -fuzz='^FuzzRepair$$' -fuzztime=$(FUZZTIME) ./session
	$(GO) test -run='^$$' -fuzz='^FuzzFillOrphans$$' -fuzztime=$(FUZZTIME) ./session
	$(GO) test -run='^$$' -fuzz='^FuzzMutators$$' -fuzztime=$(FUZZTIME) ./session
	$(GO) test -run='^$$' -fuzz='^FuzzSanitize$$' -fuzztime=$(FUZZTIME) ./listener
	$(GO) test -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZTIME) ./session
	$(GO) test -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZTIME) ./config
	$(GO) test -run='^$$' -fuzz='^FuzzCommand$$' -fuzztime=$(FUZZTIME) ./tui
	$(GO) test -run='^$$' -fuzz='^FuzzShellPolicy$$' -fuzztime=$(FUZZTIME) ./tool

clean:
	rm -rf $(BIN) $(COVERDIR) cover.out dist
