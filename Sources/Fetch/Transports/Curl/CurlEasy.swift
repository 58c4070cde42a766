#if os(Linux)
    import CFetchCurl

    /// An easy handle and its error buffer, owned by the loop's thread and reused from transfer to transfer.
    final class CurlEasy {
        let handle: OpaquePointer
        /// libcurl writes a transfer's error message here (`CURLOPT_ERRORBUFFER`).
        let errorBuffer: UnsafeMutablePointer<CChar>

        init?() {
            guard let handle = cfcurl_easy_init() else {
                return nil
            }
            self.handle = handle
            errorBuffer = .allocate(capacity: Int(CFCURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CFCURL_ERROR_SIZE))
        }

        deinit {
            cfcurl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }

        /// Forgets every option of the last transfer; live connections and caches stay in the multi handle.
        func reset() {
            cfcurl_easy_reset(handle)
            errorBuffer[0] = 0
        }

        /// The message libcurl left in the error buffer, or `nil` when it left none.
        var errorMessage: String? {
            errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
        }

        /// The value of an information item that is a `long`, or `nil` when libcurl has none.
        func info(_ item: Int) -> Int? {
            var value = 0
            return cfcurl_easy_getinfo_long(handle, Int32(item), &value) == CFCURLE_OK ? value : nil
        }

        /// Sets an option whose value is a `long`.
        func set(_ option: Int, _ value: Int) -> Int32 {
            cfcurl_easy_setopt_long(handle, Int32(option), value)
        }

        /// Sets an option whose value is a string; libcurl copies it.
        func set(_ option: Int, _ value: String) -> Int32 {
            value.withCString { cfcurl_easy_setopt_pointer(handle, Int32(option), $0) }
        }

        /// Sets an option whose value is a pointer that must stay valid for the transfer.
        func set(_ option: Int, pointer value: UnsafeRawPointer?) -> Int32 {
            cfcurl_easy_setopt_pointer(handle, Int32(option), value)
        }

        /// Sets an option whose value is a `curl_off_t`.
        func set(_ option: Int, size value: Int64) -> Int32 {
            cfcurl_easy_setopt_off_t(handle, Int32(option), value)
        }

        /// Sets the seek callback.
        func set(_ option: Int, seek value: cfcurl_seek_callback) -> Int32 {
            cfcurl_easy_setopt_seek_callback(handle, Int32(option), value)
        }

        /// Sets a write, header or read callback.
        func set(_ option: Int, callback value: cfcurl_data_callback) -> Int32 {
            cfcurl_easy_setopt_callback(handle, Int32(option), value)
        }
    }
#endif
