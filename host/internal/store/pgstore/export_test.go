package pgstore

// NeighboursSQL exposes the write path's neighbour lookup to the plan test.
var NeighboursSQL = neighboursSQL

// NearestSettingsSQL exposes the settings Nearest pipelines before its query.
const NearestSettingsSQL = nearestSettingsSQL
