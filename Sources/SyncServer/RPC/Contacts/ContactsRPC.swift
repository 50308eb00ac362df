import MTProto
/// `contacts.*`: usernames (`resolveUsername`), contact lists (`importContacts`, `addContact`, `deleteContacts`,
/// `getContacts`, `search`) and blocks (`block`, `unblock`, `getBlocked`).
enum ContactsRPC {
    /// `my_stories_from` asks about the separate list of who may not see the caller's stories, which this server does
    /// not keep (no stories): refused rather than taken for a block.
    static func refuseStoriesList(_ myStoriesFrom: Bool) throws(RPCError) {
        if myStoriesFrom { throw .badRequest("STORIES_NOT_SUPPORTED") }
    }
}
