import Foundation
import MTProto
import MTProtoNIO
import Testing
import TL

/// The shared data-center directory: selection by oldest failure, config updates that report only real changes, and
/// its file on disk.
struct DataCenterDirectoryTests {
    static let first = DataCenterAddress(host: "127.0.0.1", port: 4001)
    static let second = DataCenterAddress(host: "127.0.0.2", port: 4001)
    static let media = DataCenterAddress(host: "127.0.0.3", port: 4001, isMedia: true)
    static let cdn = DataCenterAddress(host: "127.0.0.4", port: 4001, isCDN: true)
    static let v6 = DataCenterAddress(host: "::1", port: 4001, isIPv6: true)

    static func option(_ dc: Int32, _ host: String, _ port: Int32, media: Bool = false) -> API.DcOption {
        .dcOption(.init(mediaOnly: media, id: dc, ipAddress: host, port: port))
    }

    @Test func theAddressWhoseLastFailureIsOldestIsTriedNext() {
        var directory = DataCenterDirectory(seed: [2: [Self.v6, Self.cdn, Self.first, Self.second, Self.media]])
        #expect(directory.address(of: 2) == Self.first)             // never failed, IPv4, first given; no CDN, no media
        directory.recordFailure(of: Self.first, dc: 2, at: 100)
        #expect(directory.address(of: 2) == Self.second)
        directory.recordFailure(of: Self.second, dc: 2, at: 200)
        #expect(directory.address(of: 2) == Self.first)              // failed longer ago than the other
        #expect(directory.address(of: 2, media: true) == Self.media)
        #expect(directory.address(of: 3) == nil)
        let onlyV6 = DataCenterDirectory(seed: [1: [Self.v6]])
        #expect(onlyV6.address(of: 1) == Self.v6)
    }

    @Test func aConfigReportsOnlyTheDataCentersWhoseAddressesChanged() {
        var directory = DataCenterDirectory(seed: [1: [Self.first], 2: [Self.second]])
        directory.recordFailure(of: Self.second, dc: 2, at: 50)
        let changed = directory.apply([Self.option(1, "127.0.0.1", 4001), Self.option(2, "127.0.0.2", 4001),
                                       Self.option(2, "127.0.0.9", 4002), Self.option(3, "127.0.0.3", 4003),
                                       Self.option(3, "127.0.0.3", 4003)])
        #expect(changed == [2, 3])
        #expect(directory.addresses(of: 1) == [Self.first])
        #expect(directory.addresses(of: 2).map(\.host) == ["127.0.0.2", "127.0.0.9"])
        #expect(directory.addresses(of: 3).count == 1)               // the repeated option counted once
        #expect(directory.address(of: 2)?.host == "127.0.0.9")      // the kept address keeps its failure
        #expect(directory.apply([Self.option(2, "127.0.0.2", 4001), Self.option(2, "127.0.0.9", 4002)]).isEmpty)
        #expect(directory.dataCenters == [1, 2, 3])
    }

    @Test func theStateSurvivesOnDiskAndABadFileIsATypedError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("network-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = NetworkStateFile(path: path)
        #expect(try file.load() == nil)
        var directory = DataCenterDirectory(seed: [2: [Self.first]])
        directory.recordFailure(of: Self.first, dc: 2, at: 7)
        let key = StoredClientKey(authKey: (0..<256).map { UInt8($0) }, serverSalt: -5, serverTimeOffset: 3, userID: 1001)
        let state = NetworkState(directory: directory, keys: [2: key], masterDC: 2)
        try file.save(state)
        #expect(try file.load() == state)
        #expect(try file.load()?.keys[2]?.exchangeResult?.authKey.bytes == key.authKey)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        try Data("{\"directory\": 12".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: NetworkStateError.self) { try file.load() }
        let shortKey = StoredClientKey(authKey: [1, 2, 3], serverSalt: 0, serverTimeOffset: 0)
        #expect(shortKey.exchangeResult == nil)
    }
}
