import MTProto
import TL

/// Endpoint discovery: when a data center's addresses run out, every configured source and `help.getConfig` on
/// each other data center with an address are asked at once (`EndpointDiscovery`); the first valid answer goes into
/// the shared directory. Discovery runs only on need (never during a first login that reaches its data centers),
/// and once per request: Telegram-iOS ran it twice per login, once per context.
extension ConnectionManager {
    /// Runs discovery and applies the winning answer. Returns the winning source and the data centers whose
    /// addresses changed. `excluding` is the data center that failed (not asked for its own config).
    @discardableResult
    public func discoverEndpoints(excluding failing: Int32? = nil) async throws -> (source: String, changed: Set<Int32>) {
        var sources = discovery?.sources ?? []
        for dc in state.directory.dataCenters where dc != failing {
            sources.append(ClosureEndpointSource(name: "help.getConfig on DC \(dc)") { [self] in
                try await configOptions(from: dc)
            })
        }
        count(\.httpRequests, sources.filter(\.usesHTTP).count)
        let run = EndpointDiscovery(sources: sources, timeout: discovery?.timeout ?? requestTimeout)
        let answer = try await run.run(in: environment)
        return (answer.source, try await applyConfig(answer.options))
    }

    /// Makes sure the directory has an address for `dc`, asking discovery if it has none.
    func ensureAddresses(of dc: Int32) async throws {
        guard state.directory.addresses(of: dc).isEmpty else { return }
        _ = try? await discoverEndpoints(excluding: dc)
        guard !state.directory.addresses(of: dc).isEmpty else { throw NetworkError.unknownDataCenter(dc) }
    }

    /// `help.getConfig`'s addresses from `dc` (authenticated by the key exchange with the server's RSA key).
    private func configOptions(from dc: Int32) async throws -> [API.DcOption] {
        guard case let .config(config) = try await call(API.functions.help.GetConfig(), on: try await connection(to: dc), dc: dc)
        else { return [] }
        return config.dcOptions
    }
}

/// A source given as a function: how the manager asks its own data centers, and how an app plugs in its own
/// fallback (which must authenticate what it returns).
public struct ClosureEndpointSource: EndpointSource {
    public let name: String
    public let usesHTTP: Bool
    private let body: @Sendable () async throws -> [API.DcOption]

    public init(name: String, usesHTTP: Bool = false, _ body: @escaping @Sendable () async throws -> [API.DcOption]) {
        self.name = name
        self.usesHTTP = usesHTTP
        self.body = body
    }

    public func fetch() async throws -> [API.DcOption] {
        try await body()
    }
}
