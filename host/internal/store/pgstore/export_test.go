package pgstore

// NeighboursSQL exposes the write path's neighbour lookup to the plan test.
var NeighboursSQL = neighboursSQL
