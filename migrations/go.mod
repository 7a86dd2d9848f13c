module github.com/memhost/memhost/migrations

go 1.26
