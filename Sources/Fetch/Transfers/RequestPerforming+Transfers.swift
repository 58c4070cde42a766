import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RequestPerforming {
    /// Downloads the response body of `request` into the file at `destination`, in constant memory, replacing any
    /// file there once the body is whole.
    ///
    /// ```swift
    /// let download = session.download(GetFile(name: "video.mp4"), to: destination)
    /// for await progress in download.progress {
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// let response = try await download.value
    /// ```
    ///
    /// The download is a streamed call through this performer's ``RequestPerforming/pipeline``: its middlewares
    /// (signing, authentication, retry of the head, observing, recording) and its transport apply, and the body is
    /// written to a file beside `destination` as it arrives, then moved into place. Each attempt of a resumable
    /// download is a call of its own, with its `Range` in the request the middlewares see. Over FetchTesting's
    /// doubles, the scripted body is written at once.
    ///
    /// A response outside 2xx writes no file: up to 1 MiB of its body goes to `errorParser`, and the transfer fails
    /// with its error or ``FetchError/unacceptableStatus(_:)``. The request's ``Request/timeout`` bounds each
    /// attempt as a whole, from the request to the body's last byte, however steadily the body keeps coming: at
    /// the deadline it fails with ``FetchError/timedOut(request:seconds:)``.
    ///
    /// - Parameters:
    ///   - request: The request to send.
    ///   - destination: The file URL to write the body to: a regular file, which is replaced in one step (a
    ///     rename in its directory) once the body is whole, or nothing yet. Its directory must exist. A directory,
    ///     a symbolic link (not followed), a path that ends in `/` or has `.` or `..` components is refused.
    ///   - resumption: How to resume the download when its connection drops, or `nil` not to. The default is `nil`.
    ///   - errorParser: The object that turns an error body into an error. The default is none.
    /// - Returns: The transfer: iterate its ``Transfer/progress`` (the bytes in the file so far), await its
    ///   ``Transfer/value`` (the response of the last attempt, whose body is in the file, not in
    ///   ``Response/data``), or cancel it. It fails with ``FetchError/invalidRequest(_:)``, before anything is sent
    ///   or written, when `destination` is refused or its directory does not exist; with ``FetchError/integrityCheckFailed(url:reason:request:)`` for a
    ///   body that fails its checks; with ``FetchError/cancelled(request:)`` when cancelled.
    public func download(
        _ request: any Request,
        to destination: URL,
        resumption: DownloadResumption? = nil,
        errorParser: (any ErrorParsing)? = nil
    ) -> Transfer<Response> {
        let pipeline = pipeline
        return Transfer { progress, completion in
            let download = FileDownload(
                request: request, pipeline: pipeline, destination: destination, resumption: resumption,
                errorParser: errorParser, progress: progress, completion: completion)
            download.start()
            return download
        }
    }

    /// Uploads the file at `file` as the body of `request`, streaming it from disk, and parses the response as
    /// `type`.
    ///
    /// ```swift
    /// let upload = session.upload(UploadPhoto(), fromFile: photo, as: Receipt.self)
    /// let receipt = try await upload.value
    /// ```
    ///
    /// The upload is a call through this performer's ``RequestPerforming/pipeline``, as `perform` is: each attempt
    /// (a retry, a replay after a token refresh) reads the file again from its start.
    ///
    /// - Parameters:
    ///   - request: The request to send; its own ``Request/body`` is replaced by the file's contents.
    ///   - file: The file URL whose contents are the body.
    ///   - type: The type to parse the response as.
    ///   - errorParser: The object that turns an error body into an error. The default is none.
    /// - Returns: The transfer: await its ``Transfer/value`` (the parsed response), iterate its
    ///   ``Transfer/progress`` (the bytes sent, reported once the response has arrived), or cancel it. It fails
    ///   with ``FetchError/invalidRequest(_:)``, before anything is sent, when `file` is not a readable regular file
    ///   (a directory, a symbolic link, which is not followed, or a path with `.` or `..` components).
    public func upload<T: Parsable>(
        _ request: any Request,
        fromFile file: URL,
        as type: T.Type = T.self,
        errorParser: (any ErrorParsing)? = nil
    ) -> Transfer<T> {
        let pipeline = pipeline
        return Transfer { progress, completion in
            let length: Int64
            switch FileUpload.length(of: file, for: request) {
            case .success(let size):
                length = size
            case .failure(let problem):
                completion(.failure(problem))
                return NotStarted()
            }
            let upload = FileUpload(base: request, file: file, length: length)
            return pipeline.start(upload, naming: request) { answer in
                // Off the transport's thread, where decoding a large response would hold up every other call.
                Pipeline.parsingQueue.async {
                    let result = Pipeline.parse(answer, as: T.self, for: request, errorParser: errorParser)
                    if case .success = answer {
                        progress(TransferProgress(completedBytes: length, expectedBytes: length))
                    }
                    completion(result)
                }
            }
        }
    }
}

/// The handle of a transfer that failed before it started.
private struct NotStarted: CancellableCall {
    func cancel() {}
}

/// The request of an upload: the caller's, with the file streamed as its body.
struct FileUpload: Request {
    let base: any Request
    let file: URL
    let length: Int64

    var url: URL { base.url }
    var method: HTTPMethod { base.method }
    var headers: HeaderFields { base.headers }
    var timeout: TimeInterval? { base.timeout }
    var maximumResponseSize: Int? { base.maximumResponseSize }

    /// The size of `file`, or why it cannot be uploaded, naming `request`.
    static func length(of file: URL, for request: any Request) -> Result<Int64, FetchError> {
        let call = "\(request.method) \(request.url.absoluteString)"
        if let reason = FilePathCheck.problem(with: file, for: .reading) {
            return .failure(
                .invalidRequest(
                    "\(call): cannot upload \(FilePathCheck.shown(file)): \(reason); nothing was sent"))
        }
        guard FileManager.default.isReadableFile(atPath: file.path),
            let size = PartialDownloadRecord.fileSize(file)
        else {
            return .failure(
                .invalidRequest("\(call): cannot upload \(file.path): it is not a readable regular file"))
        }
        return .success(size)
    }

    /// The caller's `URLRequest`, with a new stream over the file as its body: each attempt reads it afresh.
    func makeURLRequest() throws -> URLRequest {
        var urlRequest = try base.makeURLRequest()
        urlRequest.httpBody = nil
        // Again for each attempt: a symbolic link or a directory put there since is not read.
        if let reason = FilePathCheck.problem(with: file, for: .reading) {
            throw FetchError.invalidRequest(
                "\(method) \(url.absoluteString): cannot upload \(FilePathCheck.shown(file)): \(reason)")
        }
        guard let stream = InputStream(url: file) else {
            throw FetchError.invalidRequest(
                "\(method) \(url.absoluteString): cannot upload \(file.path): it cannot be opened")
        }
        #if canImport(FoundationNetworking) && !FETCH_APPLE_BRANCHES
            // Opened now, as `APIRequest` does: swift-corelibs-foundation's URLSession opens only a stream that is not
            // open yet.
            stream.open()
            if stream.streamStatus == .error {
                let reason = stream.streamError.map { ErrorText.describe($0) } ?? "unknown error"
                throw FetchError.invalidRequest(
                    "\(method) \(url.absoluteString): cannot upload \(file.path): \(reason)")
            }
        #else
            // Without it URLSession sends the stream chunked.
            urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
        #endif
        urlRequest.httpBodyStream = stream
        return urlRequest
    }
}
