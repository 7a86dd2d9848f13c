// Package leaky shows its users a gRPC type, for RequireNoGlueInAPI's test.
package leaky

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// Conn leaks the glue.
func Conn() *grpc.ClientConn { return nil }

// Server leaks it through a field.
type Server struct {
	S      *grpc.Server
	hidden codes.Code
}

// ok converts internally, which is allowed.
func ok() codes.Code { return (&Server{}).hidden }

var _ = ok
