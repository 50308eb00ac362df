import Foundation
import Testing
import TL

/// Byte-for-byte agreement with Telethon 1.45 (fixture written by Tests/Interop/telethon_golden.py).
struct TelethonGoldenTests {
    struct Fixture: Decodable {
        var telethon: String
        var objects: [String: String]
    }

    static let fixture: Fixture = {
        guard let url = Bundle.module.url(forResource: "telethon-golden", withExtension: "json", subdirectory: "Fixtures"),
              let data = try? Data(contentsOf: url),
              let fixture = try? JSONDecoder().decode(Fixture.self, from: data)
        else { return Fixture(telethon: "missing", objects: [:]) }
        return fixture
    }()

    @Test func fixtureComesFromTelethon145AndCoversEveryObject() {
        #expect(Self.fixture.telethon == "1.45.0")
        #expect(Self.fixture.objects.count >= 30)
        #expect(Set(Self.fixture.objects.keys) == Set(TelethonGoldenObjects.all.keys))
    }

    @Test(arguments: TelethonGoldenObjects.all.keys.sorted())
    func serializesLikeTelethonAndDecodesTelethonsBytes(name: String) throws {
        let value = try #require(TelethonGoldenObjects.all[name])
        let expected = try #require(Self.fixture.objects[name].flatMap(bytesFromHex))
        #expect(hexString(value.serialized()) == hexString(expected), "\(name)")
        try expectDecodes(expected, to: value)
    }

    private func expectDecodes<Value: TLValue>(_ bytes: [UInt8], to value: Value) throws {
        let decoded = try Value.deserialize(bytes)
        #expect(decoded == value)
    }
}
