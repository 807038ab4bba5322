import Foundation
import NotesCore

/// Why `notes export` could not read its notes or build or write the site: export's own
/// failures, each keeping what went wrong underneath. `CLI.outcome(of:)` makes them exit 1
/// with `sentence`.
enum ExportError: Error {
    /// Two notes would have the same page (`a.md` and `a.markdown`).
    case pageTakenTwice(first: NotePath, second: NotePath, page: String)
    /// A page and a copied file need the same path.
    case pathTakenTwice(String)
    /// A folder of the site would replace a file of it (a note folder named `style.css`).
    case folderReplacesFile(String)
    /// The default flavour's library cannot be used on this machine.
    case rendererUnavailable(CmarkGFMError)
    /// `--strict` found links to missing notes or files.
    case brokenLinks(count: Int)
    /// The notes folder could not be walked.
    case unreadableFolder(path: String, cause: any Error)
    /// A file to copy into the site could not be read.
    case unreadableFile(path: String, cause: any Error)
    /// OUTDIR's `.notes-export.json` is not a manifest this version reads.
    case unreadableManifest(path: String)
    /// OUTDIR holds files at paths the site needs that no export wrote.
    case foreignFiles(directory: String, paths: [String])
    case cannotCreate(path: String, cause: any Error)
    case cannotWrite(path: String, cause: (any Error)?)
    case cannotRemove(path: String, directory: String, cause: any Error)

    /// What a user reads on stderr.
    var sentence: String {
        switch self {
        case .pageTakenTwice(let first, let second, let page):
            "\(first) and \(second) would both be exported as \(page); rename one of them"
        case .pathTakenTwice(let path):
            "\(path) would be both a page and a copied file; rename the note or the file"
        case .folderReplacesFile(let folder):
            "the folder \(folder)/ would replace the exported file \(folder); rename that folder"
        case .rendererUnavailable(let cause):
            cause.description
        case .brokenLinks(let count):
            "\(count) broken link(s); nothing written (--strict)"
        case .unreadableFolder(_, let cause):
            "\(cause)"
        case .unreadableFile(let path, let cause):
            "cannot read \(path): \(fileSystemReason(cause))"
        case .unreadableManifest(let path):
            "\(path) is not a manifest this version of notes export can read; "
                + "remove it (and the files it listed) or export into an empty folder"
        case .foreignFiles(let directory, let paths):
            "\(directory) already has files that notes export did not write: "
                + paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", …" : "")
                + "; move them away or export into an empty folder"
        case .cannotCreate(let path, let cause):
            "cannot create \(path): \(fileSystemReason(cause))"
        case .cannotWrite(let path, let cause?):
            "cannot write \(path): \(fileSystemReason(cause))"
        case .cannotWrite(let path, nil):
            "cannot write \(path)"
        case .cannotRemove(let path, let directory, let cause):
            "cannot remove \(path) from \(directory): \(fileSystemReason(cause))"
        }
    }
}
