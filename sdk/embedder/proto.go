package embedder

import (
	"fmt"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
)

// The embedder kind's one conversion to and from the wire messages, one xToProto and
// xFromProto pair per type (the convention of every kind). Both adapters use it, so a field
// added to one side is added to both.

func infoToProto(i Info) *memhostv1.DescribeResponse {
	return &memhostv1.DescribeResponse{
		Name:                   i.Name,
		Version:                i.Version,
		Dimensions:             int32(i.Dimensions),
		MaxBatch:               int32(i.MaxBatch),
		MaxInputBytes:          int32(i.MaxInputBytes),
		SuggestedFoldThreshold: i.SuggestedFoldThreshold,
		Description:            i.Description,
	}
}

func infoFromProto(w *memhostv1.DescribeResponse) Info {
	return Info{
		Name:                   w.GetName(),
		Version:                w.GetVersion(),
		Description:            w.GetDescription(),
		Dimensions:             int(w.GetDimensions()),
		MaxBatch:               int(w.GetMaxBatch()),
		MaxInputBytes:          int(w.GetMaxInputBytes()),
		SuggestedFoldThreshold: w.GetSuggestedFoldThreshold(),
	}
}

// purposeToProto refuses a Purpose the protocol does not know, wrapping ErrInvalidInput.
func purposeToProto(p Purpose) (memhostv1.EmbedRequest_Purpose, error) {
	switch p {
	case PurposeDocument:
		return memhostv1.EmbedRequest_PURPOSE_DOCUMENT, nil
	case PurposeQuery:
		return memhostv1.EmbedRequest_PURPOSE_QUERY, nil
	default:
		return 0, fmt.Errorf("%w: unknown purpose %d", ErrInvalidInput, p)
	}
}

// purposeFromProto reads an unspecified purpose as a document's and refuses one the protocol
// does not know.
func purposeFromProto(p memhostv1.EmbedRequest_Purpose) (Purpose, error) {
	switch p {
	case memhostv1.EmbedRequest_PURPOSE_UNSPECIFIED, memhostv1.EmbedRequest_PURPOSE_DOCUMENT:
		return PurposeDocument, nil
	case memhostv1.EmbedRequest_PURPOSE_QUERY:
		return PurposeQuery, nil
	default:
		return 0, fmt.Errorf("unknown purpose %d", p)
	}
}

func vectorsToProto(vecs [][]float32) *memhostv1.EmbedResponse {
	w := &memhostv1.EmbedResponse{Vectors: make([]*memhostv1.EmbedResponse_Vector, len(vecs))}
	for i, v := range vecs {
		w.Vectors[i] = &memhostv1.EmbedResponse_Vector{Values: v}
	}
	return w
}

func vectorsFromProto(w *memhostv1.EmbedResponse) [][]float32 {
	vecs := make([][]float32, len(w.GetVectors()))
	for i, v := range w.GetVectors() {
		vecs[i] = v.GetValues()
	}
	return vecs
}
