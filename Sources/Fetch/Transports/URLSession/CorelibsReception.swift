#if os(Linux)
    import CFetchCurl
    import Foundation
    import FoundationNetworking

    /// Stops swift-corelibs-foundation reading the response of a data task that Fetch has ended, at once.
    ///
    /// Corelibs reads every task's socket through libcurl on one serial queue, and `URLSessionTask.cancel()` waits for
    /// that queue (`workQueue.sync`). While a fast server keeps the socket readable the queue stays busy reading, so a
    /// cancel queued when a body passed its size limit landed 250 ms and more later, and the server sent 41 to 228 MiB
    /// past an 8 MiB limit in the meantime. Corelibs hands a task's data to its session's delegate inline (through
    /// ``InlineDelegateQueue``) from inside libcurl's write callback of the task's easy handle, where libcurl lets the
    /// handle be paused: paused, libcurl reads no more of it, the queue comes free, and the cancel that Fetch has queued
    /// lands and closes the connection.
    ///
    /// Corelibs does not expose the easy handle: it is found by reflection (the task's `_protocolStorage`, the
    /// protocol's `easyHandle`, its `rawHandle`, as in swift-corelibs-foundation 6.3). Where the layout differs,
    /// nothing is paused, and the body is read until the cancel lands, as before.
    enum CorelibsReception {
        /// The libcurl that corelibs uses: `libcurl.so.4`, which FoundationNetworking links (`false` when it cannot be
        /// loaded).
        private static let isLoaded: Bool = {
            do {
                _ = try CurlLibrary.load(CurlLibrary.defaultName)
                return true
            } catch {
                return false  // nothing is paused: a body is read until the cancel lands, as without this
            }
        }()

        /// Pauses the reception of `task`'s response. Only from inside a delegate call about `task`'s data, which runs
        /// in libcurl's write callback of the task's handle on corelibs' queue: anywhere else libcurl may be using the
        /// handle on that queue.
        ///
        /// - Returns: Whether libcurl paused it.
        @discardableResult
        static func pause(_ task: URLSessionTask) -> Bool {
            guard isLoaded, let handle = easyHandle(of: task) else {
                return false
            }
            return cfcurl_easy_pause_receiving(handle) == 0
        }

        /// The libcurl easy handle of `task`'s transfer, when corelibs' layout is the one known.
        private static func easyHandle(of task: URLSessionTask) -> OpaquePointer? {
            guard let storage = child("_protocolStorage", of: task),
                let existing = Mirror(reflecting: storage).children.first(where: { $0.label == "existing" }),
                let urlProtocol = existing.value as? URLProtocol,
                let easy = child("easyHandle", of: urlProtocol).flatMap(unwrapped),
                let raw = child("rawHandle", of: easy) as? UnsafeMutableRawPointer
            else {
                return nil
            }
            return OpaquePointer(raw)
        }

        /// The stored property `label` of `subject`, looked for in its class and every superclass.
        private static func child(_ label: String, of subject: Any) -> Any? {
            var mirror: Mirror? = Mirror(reflecting: subject)
            while let current = mirror {
                if let found = current.children.first(where: { $0.label == label }) {
                    return found.value
                }
                mirror = current.superclassMirror
            }
            return nil
        }

        /// The value inside `value` when it is an optional that holds one, `value` itself when it is no optional.
        private static func unwrapped(_ value: Any) -> Any? {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else {
                return value
            }
            return mirror.children.first?.value
        }
    }
#endif
