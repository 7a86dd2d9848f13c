package pgstore

// NearestSettingsSQL exposes the settings Nearest pipelines before its query.
const NearestSettingsSQL = nearestSettingsSQL

// ProjectsSQL exposes the projects listing's query, whose plan a test checks.
const ProjectsSQL = projectsSQL
