# make test: everything CI runs. See README.md.
GO ?= go

.PHONY: test unit vet fmt

test: vet unit

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test -race ./...
