// Package providers is the plugin supervisor's adapter for the provider
// kind, and the way `memhost run` uses a provider plugin: a Handle is a
// provider.Provider backed by a supervised plugin process, so its calls get
// the supervisor's deadline, restart and short, generic errors. The SDK's
// client has already held every plan to the protocol (provider.Plan.Validate)
// by the time a Handle returns it.
package providers
