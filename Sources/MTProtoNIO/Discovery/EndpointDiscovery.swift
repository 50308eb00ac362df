import Foundation
import MTProto
import NIOCore
import TL

/// One place to learn data-center addresses from. An answer must be authenticated before it is returned: by the
/// server's RSA key, either through a signed blob or through an MTProto connection whose key exchange used it.
public protocol EndpointSource: Sendable {
    /// For errors and logs.
    var name: String { get }
    /// True when asking makes an HTTP request (counted in `NetworkAccounting.httpRequests`).
    var usesHTTP: Bool { get }
    func fetch() async throws -> [API.DcOption]
}

/// A signed config blob (`SignedConfigBlob`) at a plain-HTTP URL, such as `synccore server --config-url` serves.
/// A blob that does not open with `publicKey`, or is out of date, is refused.
public struct SignedConfigURLSource: EndpointSource {
    public let url: String
    public let publicKey: RSAPublicKey
    public let timeout: Duration
    private let group: any EventLoopGroup
    private let environment: SyncEnvironment

    public init(url: String, publicKey: RSAPublicKey, timeout: Duration = .seconds(10), group: any EventLoopGroup,
                environment: SyncEnvironment = .live) {
        self.url = url
        self.publicKey = publicKey
        self.timeout = timeout
        self.group = group
        self.environment = environment
    }

    public var name: String { url }
    public var usesHTTP: Bool { true }

    public func fetch() async throws -> [API.DcOption] {
        let text = try await HTTPTextFetch.get(url, timeout: TimeAmount(timeout), group: group)
        return try SignedConfigBlob.open(text, with: publicKey, now: environment.unixTime).dcOptions
    }
}

/// Why discovery found nothing.
public enum DiscoveryError: Error, Equatable, Sendable {
    /// No source was configured.
    case noSources
    /// Every source failed or gave no address; each source's name with its error.
    case noValidAnswer([String])
    /// No valid answer within the deadline.
    case timedOut
}

/// Asks every source at once; the first valid answer (authenticated, at least one address) wins and the others are
/// cancelled. One slow or lying source can neither delay nor poison the result while another answers correctly.
/// The whole run is bounded by `timeout`.
public struct EndpointDiscovery: Sendable {
    public var sources: [any EndpointSource]
    public var timeout: Duration

    public init(sources: [any EndpointSource], timeout: Duration = .seconds(15)) {
        self.sources = sources
        self.timeout = timeout
    }

    /// The winning source's name and addresses; the run's deadline waits on `environment`'s clock.
    public func run(in environment: SyncEnvironment = .live)
        async throws(DiscoveryError) -> (source: String, options: [API.DcOption]) {
        guard !sources.isEmpty else { throw .noSources }
        enum Outcome: Sendable {
            case answer(String, [API.DcOption])
            case failure(String)
            case deadline
        }
        let timeout = self.timeout
        let outcome: Result<(String, [API.DcOption]), DiscoveryError> = await withTaskGroup(of: Outcome.self) { group in
            for source in sources {
                group.addTask {
                    do {
                        let options = try await source.fetch()
                        return options.isEmpty ? .failure("\(source.name): no address") : .answer(source.name, options)
                    } catch {
                        return .failure("\(source.name): \(error)")
                    }
                }
            }
            group.addTask {
                try? await environment.sleep(timeout)
                return .deadline
            }
            var failures: [String] = []
            while let next = await group.next() {
                switch next {
                case let .answer(name, options):
                    group.cancelAll()
                    return .success((name, options))
                case let .failure(reason):
                    failures.append(reason)
                    if failures.count == sources.count {
                        group.cancelAll()
                        return .failure(.noValidAnswer(failures))
                    }
                case .deadline:
                    group.cancelAll()
                    return .failure(.timedOut)
                }
            }
            return .failure(.noValidAnswer(failures))
        }
        return try outcome.get()
    }
}
