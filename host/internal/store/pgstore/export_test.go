package pgstore

// NearestSettingsSQL exposes the settings Nearest pipelines before its query.
const NearestSettingsSQL = nearestSettingsSQL
