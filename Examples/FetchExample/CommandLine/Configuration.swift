import Foundation

/// The settings of `fetch-example`, read from `configuration.json` and overridden by the flags.
///
/// ```json
/// {"server": null, "debug": false, "timeout": 10, "username": "ada", "password": "…", "maxPOExpense": 5000}
/// ```
struct Configuration: Equatable {
    /// The API's base URL, or `nil` for the embedded backend.
    var server: URL?
    /// Whether to log each request to standard error.
    var debug: Bool
    /// How long to wait for each answer, in seconds.
    var timeout: TimeInterval
    /// The demo account to log in as.
    var username: String
    var password: String
    /// The business rule: the most a purchase order may cost.
    var maxPOExpense: Money

    /// Reads a configuration file.
    ///
    /// - Throws: ``UsageError`` that names the file and says what is wrong with it.
    static func load(from file: URL) throws -> Configuration {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw UsageError("cannot read the configuration \(file.path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(Configuration.self, from: data)
        } catch {
            throw UsageError("the configuration \(file.path) is not valid: \(error)")
        }
    }

    /// This configuration with the settings that `options` give replaced.
    func overridden(by options: Options) -> Configuration {
        var configuration = self
        if options.embedded {
            configuration.server = nil
        }
        configuration.server = options.server ?? configuration.server
        configuration.debug = options.debug ?? debug
        configuration.timeout = options.timeout ?? timeout
        configuration.username = options.username ?? username
        configuration.password = options.password ?? password
        configuration.maxPOExpense = options.maxPOExpense ?? maxPOExpense
        return configuration
    }
}

// MARK: - Decodable

extension Configuration: Decodable {
    private enum CodingKeys: String, CodingKey {
        case server, debug, timeout, username, password, maxPOExpense
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let server = try container.decodeIfPresent(String.self, forKey: .server) {
            self.server = try Options.serverURL(server)
        }
        debug = try container.decodeIfPresent(Bool.self, forKey: .debug) ?? false
        timeout = try container.decodeIfPresent(TimeInterval.self, forKey: .timeout) ?? 10
        username = try container.decode(String.self, forKey: .username)
        password = try container.decode(String.self, forKey: .password)
        maxPOExpense = try container.decode(Money.self, forKey: .maxPOExpense)
        guard timeout > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeout, in: container, debugDescription: "the timeout must be above 0 seconds")
        }
    }
}
