import MTProto
import TL

/// Opening connections: the directory's addresses in order of oldest failure (or the proxy), the stored key or a
/// new exchange (stored at once), one opening at a time per data center, and a keepalive loop per connection.
extension ConnectionManager {
    /// The open connection to `dc`, or a new one: the directory's next address, the stored key if there is one (a new
    /// key is stored at once). An address that cannot be reached is marked failed and the next one tried.
    func connection(to dc: Int32) async throws -> MTProtoClient {
        if let open = connections[dc] {
            if open.isActive { return open }
            await drop(dc)
        }
        if let pending = opening[dc] { return try await pending.value }
        let task = Task { try await self.open(dc) }
        opening[dc] = task
        defer { opening[dc] = nil }
        return try await task.value
    }

    private func open(_ dc: Int32) async throws -> MTProtoClient {
        opened(dc, try await connect(dc, pushes: { [updatesRelay] in updatesRelay.yield($0) }))
    }

    /// A new connection to `dc` (through the proxy when there is one) with the stored key, or a new key stored at once;
    /// its pushes go to `pushes` (a download worker's go nowhere).
    func connect(_ dc: Int32, pushes: (@Sendable ([UInt8]) -> Void)? = nil) async throws -> MTProtoClient {
        guard !isClosed else { throw NetworkError.closed }
        let client = try await reach(dc, pushes: pushes)
        guard !isClosed else {
            await client.close()
            throw NetworkError.closed
        }
        if state.keys[dc]?.authKey != client.key.authKey.bytes {
            state.keys[dc] = StoredClientKey(client.key)
            loginChanged()
            try persist()
        }
        return client
    }

    private func reach(_ dc: Int32, pushes: (@Sendable ([UInt8]) -> Void)?) async throws -> MTProtoClient {
        if let proxy {
            count(\.tcpConnections)
            do {
                return try await MTProtoClient.connect(
                    host: proxy.host, port: proxy.port, framing: proxy.framing, obfuscated: true, secret: proxy.secret,
                    publicKeys: publicKeys, dc: dc, existingKey: state.keys[dc]?.exchangeResult, group: group,
                    timeout: connectTimeout, environment: environment, pushes: pushes)
            } catch {
                throw NetworkError.unreachable(dc: dc, reason: "proxy \(proxy.host):\(proxy.port): \(error)")
            }
        }
        let attempts = state.directory.addresses(of: dc).count
        guard attempts > 0 else { throw NetworkError.unknownDataCenter(dc) }
        var lastError: (any Error)?
        for _ in 0..<attempts {
            guard let address = state.directory.address(of: dc) else { break }
            // An address with a secret is an MTProxy-style endpoint (`ipPortSecret`, `dc_option.secret`).
            let kind = address.secret.flatMap(ProxySecretKind.init)
            let secret = kind == nil ? nil : address.secret
            do {
                count(\.tcpConnections)
                return try await MTProtoClient.connect(
                    host: address.host, port: address.port,
                    framing: kind?.framing ?? framing,
                    obfuscated: secret != nil, secret: secret, publicKeys: publicKeys, dc: dc,
                    existingKey: state.keys[dc]?.exchangeResult, group: group, timeout: connectTimeout, environment: environment,
                    pushes: pushes)
            } catch {
                lastError = error
                state.directory.recordFailure(of: address, dc: dc, at: now())
            }
        }
        throw NetworkError.unreachable(dc: dc, reason: lastError.map { "\($0)" } ?? "no address")
    }

    /// Takes a new connection into use; a key it made is stored at once.
    private func opened(_ dc: Int32, _ client: MTProtoClient) -> MTProtoClient {
        connections[dc] = client
        keeperOpened(dc, client)
        lastSessionNumber += 1
        sessionNumbers[ObjectIdentifier(client)] = lastSessionNumber
        sessionChangesRelay.yield(SessionChange(dc: dc, number: lastSessionNumber))
        return client
    }
}
