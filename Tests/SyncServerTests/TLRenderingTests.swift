import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// The field-by-field encoding of a logged `updateNewMessage` equals the generated encoder's bytes, media and albums
/// included.
struct TLRenderingTests {
    @Test func theFastNewMessageEncodingMatchesTheGeneratedEncoder() throws {
        var rng = SplitMix64(seed: 229)
        let texts = ["", "a", "hello world", "émoji 🙂 and \u{0}", String(repeating: "long ", count: 300)]
        let peers: [PeerRef] = [.user(1), .user(Int64.max), .chat(77), .channel(1 << 40)]
        let media = API.MessageMedia.messageMediaDocument(.init(document: .documentEmpty(.init(id: 5)))).serialized()
        for index in 0..<500 {
            var stored = StoredMessage(
                owner: Int64(rng.next() % 1_000), id: Int32(truncatingIfNeeded: rng.next()), peer: peers[index % peers.count],
                fromID: index % 3 == 0 ? nil : Int64(bitPattern: rng.next()), out: index % 2 == 0,
                date: Int32(truncatingIfNeeded: rng.next()), text: texts[index % texts.count],
                editDate: index % 5 == 0 ? Int32(truncatingIfNeeded: rng.next()) : nil, counterpartID: nil)
            // Media and albums take the generic encoder: their bytes must not be left out.
            if index % 7 == 0 { (stored.media, stored.mediaKind) = (media, .document) }
            if index % 11 == 0 { stored.groupedID = Int64(bitPattern: rng.next()) }
            let pts = Int32(truncatingIfNeeded: rng.next())
            let generic = API.Update.updateNewMessage(.init(message: TLRendering.message(stored), pts: pts, ptsCount: 1)).serialized()
            #expect(TLRendering.newMessageUpdate(stored, pts: pts) == generic)
        }
    }
}
