import Postbox
import TL

/// What a user is doing in a chat, as the chat's typing marks show it: `messages.setTyping`'s action
/// (core.telegram.org/method/messages.setTyping) without its TL. A mark lasts `Typing.lifetime` seconds unless
/// repeated, so an app repeats `.typing` every few seconds while its user types and sends `.cancel` when they stop.
public enum ChatAction: Equatable, Sendable {
    case typing
    case cancel
    case recordingVoice
    case recordingVideo
    /// An upload in progress (percent done).
    case uploadingPhoto(percent: Int32)
    case uploadingDocument(percent: Int32)
    case choosingSticker
    /// An action this type does not name (a game, a location, …).
    case other

    var tl: API.SendMessageAction {
        switch self {
        case .typing, .other: .sendMessageTypingAction(.init())
        case .cancel: .sendMessageCancelAction(.init())
        case .recordingVoice: .sendMessageRecordAudioAction(.init())
        case .recordingVideo: .sendMessageRecordVideoAction(.init())
        case let .uploadingPhoto(percent): .sendMessageUploadPhotoAction(.init(progress: percent))
        case let .uploadingDocument(percent): .sendMessageUploadDocumentAction(.init(progress: percent))
        case .choosingSticker: .sendMessageChooseStickerAction(.init())
        }
    }

    init(_ action: API.SendMessageAction) {
        switch action {
        case .sendMessageTypingAction: self = .typing
        case .sendMessageCancelAction: self = .cancel
        case .sendMessageRecordAudioAction: self = .recordingVoice
        case .sendMessageRecordVideoAction: self = .recordingVideo
        case let .sendMessageUploadPhotoAction(value): self = .uploadingPhoto(percent: value.progress)
        case let .sendMessageUploadDocumentAction(value): self = .uploadingDocument(percent: value.progress)
        case .sendMessageChooseStickerAction: self = .choosingSticker
        default: self = .other
        }
    }
}

extension Typing {
    /// How long a mark stands unless repeated (Telegram's clients show one for about six seconds).
    public static let lifetime: Double = 6

    /// The action, without its TL.
    public var activity: ChatAction { ChatAction(action) }
}

extension Account {
    /// Tells `peer`'s other members what this account is doing (`messages.setTyping`). Not queued: a mark is only
    /// worth sending now, so offline this throws the network's error.
    public func setTyping(_ action: ChatAction = .typing, in peer: PeerID) async throws {
        let input = try await inputPeer(peer)
        _ = try await network.send(API.functions.messages.SetTyping(peer: input, action: action.tl))
    }
}
