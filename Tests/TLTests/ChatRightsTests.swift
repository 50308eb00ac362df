import Testing
import TL

/// The named rights are the bits layer 229 gives them: each one alone, set by its generated field, is that bit of the
/// flags word and nothing else (a wrong constant would name another right).
struct ChatRightsTests {
    @Test func eachNamedAdminRightIsItsFieldsBit() {
        let cases: [(AdminRights, API.ChatAdminRights.ChatAdminRights)] = [
            (.changeInfo, .init(changeInfo: true)), (.postMessages, .init(postMessages: true)),
            (.editMessages, .init(editMessages: true)), (.deleteMessages, .init(deleteMessages: true)),
            (.banUsers, .init(banUsers: true)), (.inviteUsers, .init(inviteUsers: true)),
            (.pinMessages, .init(pinMessages: true)), (.addAdmins, .init(addAdmins: true)),
            (.manageCall, .init(manageCall: true)), (.other, .init(other: true)),
        ]
        for (right, fields) in cases {
            #expect(AdminRights(.chatAdminRights(fields)) == right, "\(fields)")
            #expect(right.tl == .chatAdminRights(fields), "\(right)")
        }
    }

    @Test func eachNamedRestrictionIsItsFieldsBit() {
        let cases: [(BannedRights, API.ChatBannedRights.ChatBannedRights)] = [
            (.viewMessages, .init(viewMessages: true, untilDate: 0)), (.sendMessages, .init(sendMessages: true, untilDate: 0)),
            (.changeInfo, .init(changeInfo: true, untilDate: 0)), (.inviteUsers, .init(inviteUsers: true, untilDate: 0)),
            (.pinMessages, .init(pinMessages: true, untilDate: 0)), (.sendPlain, .init(sendPlain: true, untilDate: 0)),
        ]
        for (restriction, fields) in cases {
            #expect(BannedRights(.chatBannedRights(fields)) == restriction, "\(fields)")
        }
        // A restriction without a name here is kept in the word, not dropped.
        let polls = API.ChatBannedRights.chatBannedRights(.init(sendPolls: true, untilDate: 9))
        #expect(API.ChatBannedRights(flagsWord: BannedRights(polls).rawValue, untilDate: 9) == polls)
    }
}
