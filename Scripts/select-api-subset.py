#!/usr/bin/env python3
"""Writes Sources/TL/Schema/api.tl: the subset of Telegram's layer-229 schema that SyncCore uses.

Usage: Scripts/select-api-subset.py PATH/TO/api-layer229.tl > Sources/TL/Schema/api.tl

The subset is every function and update constructor listed below plus the transitive closure of the
types they reference. Every constructor of a referenced type is kept (so a real layer-229 peer never
sends a constructor we cannot decode), except for the types in PARTIAL (none at present), where only the
listed constructors are kept. Lines are copied unchanged, in the reference file's order.
"""
import re
import sys

FUNCTIONS = """
help.getConfig help.getNearestDc
auth.sendCode auth.signIn auth.signUp auth.logOut auth.exportAuthorization auth.importAuthorization
users.getUsers users.getFullUser contacts.resolveUsername
messages.sendMessage messages.getHistory messages.readHistory messages.deleteMessages messages.editMessage
messages.getDialogs messages.getMessages messages.setTyping messages.createChat messages.getChats
messages.updatePinnedMessage messages.unpinAllMessages messages.search messages.getPeerDialogs messages.deleteHistory
messages.forwardMessages messages.toggleDialogPin messages.reorderPinnedDialogs messages.getPinnedDialogs
channels.createChannel channels.joinChannel channels.leaveChannel channels.getChannels channels.getMessages
channels.readHistory channels.deleteMessages channels.getParticipants channels.getParticipant channels.getFullChannel
channels.editAdmin channels.editBanned channels.editTitle channels.inviteToChannel
messages.getFullChat messages.addChatUser messages.deleteChatUser messages.editChatTitle messages.editChatDefaultBannedRights
updates.getState updates.getDifference updates.getChannelDifference
account.updateProfile account.checkUsername account.updateUsername account.updateStatus account.updateNotifySettings
account.getNotifySettings messages.saveDraft messages.getAllDrafts
contacts.importContacts contacts.addContact contacts.getContacts contacts.deleteContacts contacts.search
contacts.block contacts.unblock contacts.getBlocked
upload.saveFilePart upload.saveBigFilePart upload.getFile
messages.sendMedia messages.sendMultiMedia messages.uploadMedia messages.editChatPhoto channels.editPhoto
photos.uploadProfilePhoto photos.updateProfilePhoto photos.getUserPhotos photos.deletePhotos
invokeWithLayer initConnection invokeWithoutUpdates invokeAfterMsg
""".split()

# Constructors kept explicitly: those of PARTIAL types, and results of methods not (yet) in FUNCTIONS.
CONSTRUCTORS = """
updateNewMessage updateMessageID updateDeleteMessages updateUserTyping updateChatUserTyping updateUserStatus
updateUserName updateNewEncryptedMessage updateReadHistoryInbox updateReadHistoryOutbox updateEditMessage
updateNewChannelMessage updateEditChannelMessage updateDeleteChannelMessages updateReadChannelInbox
updateReadChannelOutbox updateChannelTooLong updateChannel updatePinnedMessages updatePinnedChannelMessages
updateChannelUserTyping updateReadMessagesContents updateChannelAvailableMessages updateChannelMessageViews
updateChatParticipants
""".split()

# Update is kept whole: a client must decode every update a layer-229 server may push (one unknown constructor makes
# a whole Updates, and every difference carrying it, undecodable).
PARTIAL = set()

BUILTIN = {"Vector", "vector", "int", "long", "double", "string", "bytes", "true", "Bool",
           "int128", "int256", "#", "Type", "X", "Object"}


def parse(lines):
    section, ctors, funcs, by_type = "types", {}, {}, {}
    for line in lines:
        s = line.strip()
        if s == "---types---":
            section = "types"
            continue
        if s == "---functions---":
            section = "functions"
            continue
        if not s or s.startswith("//"):
            continue
        m = re.match(r"([\w.]+)#([0-9a-f]+)\s(.*)=\s*([^;]+);", s)
        if not m:
            continue
        name, _, args, result = m.groups()
        entry = {"name": name, "line": line.rstrip("\n"), "args": args, "result": result.strip()}
        if section == "types":
            ctors[name] = entry
            by_type.setdefault(entry["result"], []).append(name)
        else:
            funcs[name] = entry
    return ctors, funcs, by_type


def referenced_types(text):
    out = set()
    for word in re.findall(r"[\w.]+", re.sub(r"flags\d*\.\d+\?", "", text)):
        if word not in BUILTIN and not word.isdigit() and word[0].isupper() or "." in word and word.split(".")[-1][0].isupper():
            out.add(word)
    return out


def field_types(args):
    return referenced_types(" ".join(a.split(":", 1)[1] for a in args.split() if ":" in a))


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    ctors, funcs, by_type = parse(lines)
    kept, seen = set(FUNCTIONS) | set(CONSTRUCTORS), set()
    queue = []
    for f in FUNCTIONS:
        queue += list(field_types(funcs[f]["args"])) + list(referenced_types(funcs[f]["result"]))
    for c in CONSTRUCTORS:
        queue += list(field_types(ctors[c]["args"]))
    while queue:
        t = queue.pop()
        if t in seen or t in BUILTIN:
            continue
        seen.add(t)
        for c in by_type.get(t, []):
            if (t in PARTIAL and c not in CONSTRUCTORS) or c in kept:
                continue
            kept.add(c)
            queue += list(field_types(ctors[c]["args"]))
    print("// Subset of Telegram API layer 229 used by SyncCore: written by Scripts/select-api-subset.py")
    print("// from the published layer-229 schema; lines are copied unchanged.")
    print("// LAYER 229")
    section = None
    for line in lines:
        s = line.strip()
        if s in ("---types---", "---functions---"):
            section = s
            print("")
            print(s)
            print("")
            continue
        m = re.match(r"([\w.]+)#", s)
        if m and not s.startswith("//") and m.group(1) in kept:
            print(s)


main()
