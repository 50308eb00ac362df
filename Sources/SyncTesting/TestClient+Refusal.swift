import MTProtoNIO
import TL

extension TestClient {
    /// The error a call ends in, as its message (nil when it succeeded): what tests of Telegram's refusals compare.
    public func refusal<Function: TLFunction>(_ function: Function) async -> String? {
        do {
            _ = try await call(function)
            return nil
        } catch let MTProtoClientError.rpc(error) {
            return error.message
        } catch {
            return "\(error)"
        }
    }
}
