package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Machine describes where the numbers were measured; latency targets are stated for a
// 2-core machine, so a report without this is not comparable.
type Machine struct {
	CPUs     int
	CPUModel string
	RAM      string
	Go       string
	OS       string
	Postgres string
	PGVector string
	// SharedBuffers is Postgres's own page cache: whether memories and their graphs fit in it
	// decides the latency of a large database more than anything else.
	SharedBuffers string
	// HugePages is what the kernel has reserved of them and how much is in use: without them
	// a large shared_buffers costs every new connection page faults.
	HugePages string
}

func describeMachine(ctx context.Context, dbURL string) (Machine, error) {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		CPUModel: procField("/proc/cpuinfo", "model name"), RAM: "unknown"}
	m.HugePages = hugePages()
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if n, err := strconv.ParseFloat(strings.Fields(kb)[0], 64); err == nil {
			m.RAM = fmt.Sprintf("%.1f GiB", n/(1<<20))
		}
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return m, fmt.Errorf("connect to %s: %w", dbURL, err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&m.Postgres); err != nil {
		return m, fmt.Errorf("postgres version: %w", err)
	}
	if err := conn.QueryRow(ctx, "SHOW shared_buffers").Scan(&m.SharedBuffers); err != nil {
		return m, fmt.Errorf("postgres shared_buffers: %w", err)
	}
	// The extension may not exist yet in a fresh database; the available version is what the
	// benchmark schemas will create.
	if err := conn.QueryRow(ctx, "SELECT coalesce(installed_version, default_version) FROM pg_available_extensions WHERE name = 'vector'").Scan(&m.PGVector); err != nil {
		return m, fmt.Errorf("pgvector version (is the extension installed?): %w", err)
	}
	return m, nil
}

// procField returns the value of the first "key : value" line of a /proc file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// hugePages describes the kernel's huge pages from /proc/meminfo: "none reserved", or how many
// MiB are reserved and how many of them a process (Postgres's shared memory) holds.
func hugePages() string {
	count := func(key string) int64 {
		f := strings.Fields(procField("/proc/meminfo", key))
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n
	}
	total, free, rsvd, sizeKB := count("HugePages_Total"), count("HugePages_Free"), count("HugePages_Rsvd"), count("Hugepagesize")
	if total == 0 || sizeKB == 0 {
		return "none reserved"
	}
	mib := func(pages int64) int64 { return pages * sizeKB / 1024 }
	return fmt.Sprintf("%d MiB reserved, %d MiB in use", mib(total), mib(total-free+rsvd))
}
