# make test: everything CI runs (see README.md). It needs root on a fresh
# Debian machine only to install the real servers' packages.
GO ?= go
SERVERS := integration/servers/servers

.PHONY: test vet unit fuzz integration compose-check servers-start servers-stop install print-fetch-tags

# make install: the command, its manual page and its shell completions,
# under PREFIX (DESTDIR for packaging). FETCH_TAGS are the build tags
# internal/buildflags/tags gives, and why: a static binary of Go's own
# resolver, without urfave/cli's documentation generators.
FETCH_TAGS := $(shell sed -e '/^\#/d' -e '/^$$/d' internal/buildflags/tags)
PREFIX ?= /usr/local
BIN := $(DESTDIR)$(PREFIX)/bin

test: vet unit fuzz integration compose-check

# vet also checks the syntax of the scripts (benchmarks, fuzz, servers),
# which no test runs.
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags integration ./integration/...
	@for f in $$(git ls-files bench fuzz integration/servers); do \
		case "$$(head -n 1 "$$f")" in \
		'#!'*bash*) bash -n "$$f" ;; \
		'#!/bin/sh'*) sh -n "$$f" ;; \
		'#!'*python3*) ! command -v python3 >/dev/null || python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$$f" ;; \
		'#!'*perl*) ! command -v perl >/dev/null || perl -c "$$f" 2>/dev/null ;; \
		esac || { echo "$$f: syntax error"; exit 1; }; \
	done

unit:
	$(GO) test -race ./...

# Every fuzz target for FUZZTIME (default 15s) on one worker, one after
# another: a few minutes in all. A failing input is left under the
# package's testdata/fuzz/ to be committed as a seed.
fuzz:
	GO=$(GO) fuzz/run

# Starts the real servers on loopback, runs the integration suite against
# them and stops them again, whatever the outcome.
integration:
	@$(SERVERS) start || { $(SERVERS) stop; exit 1; }
	@status=0; $(GO) test -race -count=1 -timeout 20m -tags integration ./integration/... || status=$$?; \
	$(SERVERS) stop; exit $$status

# Docker's engine does not run on our machines: CI checks that
# docker-compose.yml is valid, and the native script runs the servers.
compose-check:
	@command -v docker-compose >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-compose >/dev/null; } || { echo "install docker-compose (apt-get install docker-compose) to check docker-compose.yml"; exit 1; }
	docker-compose -f docker-compose.yml config -q

install:
	mkdir -p $(BIN) $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(GO) build -buildvcs=auto -tags $(FETCH_TAGS) -o $(BIN)/fetch ./cmd/fetch
	$(BIN)/fetch help --man > $(DESTDIR)$(PREFIX)/share/man/man1/fetch.1
	$(BIN)/fetch completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fetch
	$(BIN)/fetch completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_fetch
	$(BIN)/fetch completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/fetch.fish

servers-start:
	$(SERVERS) start

servers-stop:
	$(SERVERS) stop

print-fetch-tags:
	@echo $(FETCH_TAGS)
