module github.com/turngate/turngate/bindings/go

go 1.24
