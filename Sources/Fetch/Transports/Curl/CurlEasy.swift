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

        /// Sets what every connection Fetch opens through libcurl shares, a transfer's and a WebSocket's alike: no
        /// signals, sockets closed on exec, HTTP and HTTPS only, the error buffer, and TLS always verified (the
        /// options can only add a CA file or pins).
        ///
        /// - Returns: The first option libcurl refused and its code, or `nil` when it took them all.
        func setConnectionDefaults(_ options: CurlTransport.Options) -> (option: String, code: Int32)? {
            var refused: (option: String, code: Int32)?
            func require(_ option: String, _ code: Int32) {
                if code != CFCURLE_OK, refused == nil {
                    refused = (option, code)
                }
            }
            _ = set(Int(CFCURLOPT_NOSIGNAL), 1)
            // No child process an app starts holds a copy of a connection (and keeps it open past its close).
            require("CURLOPT_OPENSOCKETFUNCTION", cfcurl_easy_open_sockets_closed_on_exec(handle))
            // The bit mask first: libcurl parses the string form on every request (callgrind: 0.7 K instructions to
            // set it, about 2 K a call in all). The mask is deprecated (7.85), not removed; the string is for a
            // libcurl that refuses it.
            if set(Int(CFCURLOPT_PROTOCOLS), Int(CFCURLPROTO_HTTP_HTTPS)) != CFCURLE_OK {
                require("CURLOPT_PROTOCOLS_STR", set(Int(CFCURLOPT_PROTOCOLS_STR), "http,https"))
            }
            _ = set(Int(CFCURLOPT_ERRORBUFFER), pointer: errorBuffer)
            require("CURLOPT_SSL_VERIFYPEER", set(Int(CFCURLOPT_SSL_VERIFYPEER), 1))
            require("CURLOPT_SSL_VERIFYHOST", set(Int(CFCURLOPT_SSL_VERIFYHOST), 2))
            if let file = options.certificateAuthorityFile {
                require("CURLOPT_CAINFO", set(Int(CFCURLOPT_CAINFO), file.path))
            }
            if let pins = options.pinnedPublicKeyOption {
                require("CURLOPT_PINNEDPUBLICKEY", set(Int(CFCURLOPT_PINNEDPUBLICKEY), pins))
            }
            return refused
        }
    }
#endif
