import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SyncTesting
import Testing
@testable import SyncServer

/// How statements go out: their names, and `BinaryArray`, the encoder of their array parameters (byte for byte what
/// postgres-nio writes for the same array, and read back by a real PostgreSQL as the same values).
@Suite(.timeLimit(.minutes(1)))
struct PostgresStatementTests {
    private static func encoded(_ value: some PostgresDynamicTypeEncodable) -> [UInt8] {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        return Array(buffer: buffer)
    }

    private static func postgresNIO<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>(_ array: [Element]) -> [UInt8] {
        encoded(array)
    }

    private static func ours<Element: BinaryArrayElement>(_ array: [Element]) -> (bytes: [UInt8], type: PostgresDataType) {
        let value = BinaryArray(elements: array)
        return (encoded(value), value.psqlType)
    }

    @Test func everyElementTypeIsEncodedAsPostgresNIODoes() {
        let int64s: [Int64] = [0, 1, -1, .max, .min, 0x0102_0304_0506_0708]
        let int32s: [Int32] = [0, -2, .max, .min, 0x0102_0304]
        let int16s: [Int16] = [0, -3, .max, .min, 0x0102]
        let bools = [true, false, true]
        let buffers = [ByteBuffer(), ByteBuffer(bytes: [0, 0xFF, 7]), ByteBuffer(bytes: Array(repeating: 0xAB, count: 300))]
        let strings = ["", "bench 1 2 3", "Привет, 世界 🙂"]
        #expect(Self.ours(int64s).bytes == Self.postgresNIO(int64s) && Self.ours(int64s).type == [Int64].psqlType)
        #expect(Self.ours(int32s).bytes == Self.postgresNIO(int32s) && Self.ours(int32s).type == [Int32].psqlType)
        #expect(Self.ours(int16s).bytes == Self.postgresNIO(int16s) && Self.ours(int16s).type == [Int16].psqlType)
        #expect(Self.ours(bools).bytes == Self.postgresNIO(bools) && Self.ours(bools).type == [Bool].psqlType)
        #expect(Self.ours(buffers).bytes == Self.postgresNIO(buffers) && Self.ours(buffers).type == [ByteBuffer].psqlType)
        #expect(Self.ours(strings).bytes == Self.postgresNIO(strings) && Self.ours(strings).type == [String].psqlType)
    }

    @Test func emptyArraysAreEncodedAsPostgresNIODoes() {
        #expect(Self.ours([Int64]()).bytes == Self.postgresNIO([Int64]()))
        #expect(Self.ours([ByteBuffer]()).bytes == Self.postgresNIO([ByteBuffer]()))
        #expect(Self.ours([String]()).bytes == Self.postgresNIO([String]()))
    }

    /// A statement's array parameters go through `BinaryArray` (the `SQLValue` conformance picks it by element type).
    @Test func statementParametersUseIt() {
        let prepared = Prepared<Echo>([Int64(5), -6], [true])
        var expected = PostgresBindings()
        expected.append(BinaryArray(elements: [Int64(5), -6]))
        expected.append(BinaryArray(elements: [true]))
        #expect(prepared.bindings == expected)
    }

    /// Named by the type inside the module (PostgreSQL cuts names at 63 bytes), the same at every call.
    @Test func statementsAreNamedByTheirType() {
        #expect(Prepared<Echo>.name == "PostgresStatementTests.Echo")
        #expect(Prepared<PostgresTransaction.FlushRows>.name == "PostgresTransaction.FlushRows")
        #expect(Prepared<Echo>.name == "PostgresStatementTests.Echo")
    }

    enum Echo: PostgresSQL {
        static let sql = """
            SELECT $1::bigint[], $2::integer[], $3::smallint[], $4::boolean[], $5::bytea[], $6::text[], cardinality($7::bigint[])
            """
    }

    @Test(.enabled(if: TestPostgres.url != nil)) func postgreSQLReadsBackTheSameValues() async throws {
        let url = try #require(TestPostgres.url)
        let pool = PostgresSessionPool(configuration: try PostgresURL.configuration(url), size: 1, deadline: .seconds(30),
                                       group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"))
        let session = try await pool.connect(on: MultiThreadedEventLoopGroup.singleton.any())
        let int64s: [Int64] = [.min, -1, 0, .max], int32s: [Int32] = [.min, 7, .max], int16s: [Int16] = [.min, 0, .max]
        let bools = [false, true], buffers = [ByteBuffer(), ByteBuffer(bytes: [0, 1, 0xFF])], strings = ["", "Привет 🙂", "a'b\"c"]
        let rows = try await session.rows(Prepared<Echo>(int64s, int32s, int16s, bools, buffers, strings, [Int64]()))
        let row = try #require(rows.first)
        let decoded = try row.decode(([Int64], [Int32], [Int16], [Bool], [ByteBuffer], [String], Int32).self)
        #expect(decoded.0 == int64s && decoded.1 == int32s && decoded.2 == int16s && decoded.3 == bools)
        #expect(decoded.4 == buffers && decoded.5 == strings && decoded.6 == 0)
        try await session.connection.close()
        await pool.shutdown()
    }
}
