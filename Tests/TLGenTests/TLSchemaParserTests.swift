import Foundation
import Testing
@testable import TLGen

struct TLSchemaParserTests {
    static let grammarSample = """
    // LAYER 229
    /* a block comment
       spanning lines */
    ---types---
    //vector#1cb5c415 {t:Type} # [ t ] = Vector t;
    vector#1cb5c415 {t:Type} # [ t ] = Vector t;
    inputPeerUser#dde8a54c user_id:long access_hash:long = InputPeer;
    userStatusRecently#7b197dc8 flags:# by_me:flags.0?true = UserStatus;
    updateShortSentMessage#9015e101 flags:# out:flags.1?true id:int pts:int pts_count:int
        date:int media:flags.9?MessageMedia entities:flags.7?Vector<MessageEntity> ttl_period:flags.25?int = Updates;
    future_salts#ae500895 req_msg_id:long now:int salts:vector<future_salt> = FutureSalts;
    msg_container#73f1f8dc messages:vector<%Message> = MessageContainer; // trailing comment
    New Tree;
    ---functions---
    invokeWithLayer#da9b0d0d {X:Type} layer:int query:!X = X;
    users.getUsers#0d91a548 id:Vector<InputUser> = Vector<User>;
    """

    @Test func parsesTheFullGrammar() throws {
        // The sample's ids are not all real CRCs (msg_container uses %Message here); ids are tested below.
        let schema = try TLSchemaParser(verifyIDs: false).parse(Self.grammarSample)
        #expect(schema.layer == 229)
        #expect(schema.constructors.map(\.name) == [
            "vector", "inputPeerUser", "userStatusRecently", "updateShortSentMessage", "future_salts", "msg_container",
        ])
        #expect(schema.functions.map(\.name) == ["invokeWithLayer", "users.getUsers"])

        let vector = schema.constructors[0]
        #expect(vector.typeParameters == ["t"])
        #expect(vector.parameters.last?.repetition?.first?.type.name == "t")
        #expect(vector.result == TLTypeExpr(name: "Vector", isBare: false, arguments: [TLTypeExpr(name: "t", isBare: true)]))

        let sent = schema.constructors[3]
        #expect(sent.line == 9)
        #expect(sent.parameters.first?.isFlagsField == true)
        #expect(sent.parameters[1].isTrueFlag)
        #expect(sent.parameters[1].condition == TLFlagCondition(field: "flags", bit: 1))
        #expect(sent.parameters.last?.condition == TLFlagCondition(field: "flags", bit: 25))
        #expect(sent.parameters[7].type.description == "Vector<MessageEntity>")

        #expect(schema.constructors[4].parameters[2].type.name == "vector")
        #expect(schema.constructors[4].parameters[2].type.arguments[0].isBare)
        #expect(schema.constructors[5].parameters[0].type.arguments[0] == TLTypeExpr(name: "Message", isBare: true))

        let invoke = schema.functions[0]
        #expect(invoke.typeParameters == ["X"])
        #expect(invoke.parameters[1].type == TLTypeExpr(name: "X", isBare: false, isBang: true))
        #expect(schema.functions[1].result.description == "Vector<User>")
        #expect(schema.functions[1].explicitID == 0x0d91_a548)
    }

    @Test func flags2FieldsAreSeparateBitSets() throws {
        let line = "message#7600b9d3 flags:# out:flags.1?true flags2:# offline:flags2.1?true id:int via_business_bot_id:flags2.0?long = Message"
        let combinator = try #require(try TLSchemaParser(verifyIDs: false).parseDefinition(line, isFunction: false, line: 1))
        #expect(combinator.parameters.filter(\.isFlagsField).map(\.name) == ["flags", "flags2"])
        #expect(combinator.parameters.last?.condition == TLFlagCondition(field: "flags2", bit: 0))
    }

    @Test func idsAreCheckedAgainstTheCRC32OfTheNormalizedLine() throws {
        // Ids as real clients send them (Telethon 1.45 and kurigram 2.2 serialize these lines to these ids).
        let known: [(String, UInt32)] = [
            ("req_pq_multi nonce:int128 = ResPQ", 0xbe7e_8ef1),
            ("resPQ nonce:int128 server_nonce:int128 pq:bytes server_public_key_fingerprints:Vector<long> = ResPQ", 0x0516_2463),
            ("updateShortMessage flags:# out:flags.1?true mentioned:flags.4?true media_unread:flags.5?true silent:flags.13?true id:int user_id:long message:string pts:int pts_count:int date:int fwd_from:flags.2?MessageFwdHeader via_bot_id:flags.11?long reply_to:flags.3?MessageReplyHeader entities:flags.7?Vector<MessageEntity> ttl_period:flags.25?int = Updates", 0x313b_c7f8),
            ("invokeWithLayer {X:Type} layer:int query:!X = X", 0xda9b_0d0d),
            ("msgs_ack msg_ids:Vector<long> = MsgsAck", 0x62d6_b459),
        ]
        for (definition, id) in known {
            #expect(TLCRC32.combinatorID(definition: definition) == id, "\(definition)")
        }
        #expect(throws: TLSchemaError(line: 3, message: "msgs_ack: id #62d6b458 does not match CRC32 #62d6b459 of the definition")) {
            try TLSchemaParser().parse("---types---\n\nmsgs_ack#62d6b458 msg_ids:Vector<long> = MsgsAck;")
        }
    }

    @Test func malformedSchemasAreReportedWithTheirLine() {
        #expect(throws: TLSchemaError.self) { try TLSchemaParser().parse("a#1 x:int = A") }
        #expect(throws: TLSchemaError.self) { try TLSchemaParser().parse("a#zz x:int = A;") }
        #expect(throws: TLSchemaError.self) { try TLSchemaParser().parse("a x:flags.99?int = A;") }
        #expect(throws: TLSchemaError.self) { try TLSchemaParser().parse("a x:Vector<int = A;") }
        #expect(throws: TLSchemaError.self) { try TLSchemaParser().parse("---nonsense---") }
    }

    /// The whole published layer-229 schema parses and every id checks, when the file is available
    /// (`.ci/run` points SYNCCORE_FULL_TL_SCHEMA at it).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SYNCCORE_FULL_TL_SCHEMA"] != nil))
    func parsesAndGeneratesTheWholeReferenceSchema() throws {
        let path = try #require(ProcessInfo.processInfo.environment["SYNCCORE_FULL_TL_SCHEMA"])
        let schema = try TLSchemaParser().parse(try String(contentsOfFile: path, encoding: .utf8))
        #expect(schema.layer == 229)
        #expect(schema.constructors.count > 1600)
        #expect(schema.functions.count > 800)
        #expect(schema.constructors.allSatisfy { $0.explicitID == $0.computedID })
        // The generator handles every construct the full schema uses.
        let files = try SwiftGenerator(schema: schema, root: "API", sourceLabel: path).files()
        #expect(files.count > 10)
    }
}
