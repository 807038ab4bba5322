/// Why cmark-gfm, the engine of the default Markdown flavour, is not usable in this process.
public enum CmarkGFMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The shared library could not be opened (the loader's message).
    case notLoaded(String)
    /// The library lacks a function this wrapper binds.
    case missingSymbol(String)
    /// The library registered no GFM extension of this name.
    case missingExtension(String)

    public var description: String {
        switch self {
        case .notLoaded(let reason):
            "cmark-gfm could not be loaded (\(reason)): install Debian's libcmark-gfm-extensions-dev, or render with --commonmark"
        case .missingSymbol(let name):
            "cmark-gfm lacks \(name): install Debian's libcmark-gfm 0.29.0.gfm.6"
        case .missingExtension(let name):
            "cmark-gfm has no \(name) extension: install Debian's libcmark-gfm-extensions 0.29.0.gfm.6"
        }
    }
}
