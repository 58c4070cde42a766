// The imports README.md's "Installation" section shows, compiled as a file of their own.

// README-BEGIN
import Fetch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
// README-END

/// Names a type from each module the imports bring in, so that the file proves they are enough.
func installationSample(configuration: URLSessionConfiguration) -> Session {
    Session(transport: URLSessionTransport(configuration: configuration))
}
