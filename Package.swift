// swift-tools-version:6.0
// Notes: a self-hosted Markdown note sync service.
// Layering: NotesServer and notes-cli depend on NotesCore, never on each other; both take their
// command line (the declarative command tree, help, completions, prompts) from NotesCommandLine,
// which depends on nothing, so NotesCore holds no command-line code.
// Each C library is one system-library target, imported only by the wrapper that owns it.
import PackageDescription

let package = Package(
    name: "Notes",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "notes-server", targets: ["NotesServer"]),
        .executable(name: "notes", targets: ["notes-cli"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CCmark",
            pkgConfig: "libcmark",
            providers: [.apt(["libcmark-dev"]), .brew(["cmark"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        .systemLibrary(
            name: "CPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // OpenSSL's libcrypto: SHA-256 content hashes and the JWS signature checks of OpenID
        // Connect sign-in, both wrapped in NotesCore/Crypto.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // libyaml: front matter of the default Markdown flavour (NotesCore/Markdown/FrontMatter).
        // cmark-gfm has no target: it is opened at run time beside libcmark (NotesCore/Markdown/GFM).
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // libcurl: the client's HTTP transport (NotesCore/HTTP, `CurlClient`).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // glibc's malloc tuning (part of libc, no package): see the two main.swift files.
        .systemLibrary(name: "CMalloc"),
        // Linux's syncfs(2) (part of libc, no package): see NotesServer/Storage/FileBlobStore.swift.
        .systemLibrary(name: "CFileSync"),
        .target(
            name: "NotesCore",
            dependencies: ["CSQLite", "CCmark", "CYAML", "CSodium", "CCrypto", "CCurl"],
            // The script rendered pages run to typeset math and highlight code with Debian's
            // KaTeX and highlight.js, compiled in: the server serves it and export copies it.
            resources: [.embedInCode("Markdown/PageAssets/notes-render.js")]
        ),
        .target(
            name: "NotesCommandLine"
        ),
        .executableTarget(
            name: "NotesServer",
            dependencies: ["NotesCore", "NotesCommandLine", "CMicroHTTPD", "CPQ", "CFileSync", "CMalloc"],
            // The web app's stylesheet and script, compiled into the binary (`PackageResources`),
            // so an installed `notes-server` is one file and can never serve stale assets.
            resources: [.embedInCode("Web/Assets/notes.css"), .embedInCode("Web/Assets/notes.js"), .embedInCode("Web/Assets/upload.js")]
        ),
        .executableTarget(
            name: "notes-cli",
            dependencies: ["NotesCore", "NotesCommandLine", "CMalloc"]
        ),
        .target(
            name: "NotesTestSupport",
            dependencies: ["NotesCore"],
            path: "Tests/NotesTestSupport"
        ),
        .testTarget(
            name: "NotesCoreTests",
            dependencies: ["NotesCore", "NotesTestSupport"]
        ),
        .testTarget(
            name: "NotesServerTests",
            dependencies: ["NotesServer", "NotesCore", "NotesCommandLine", "NotesTestSupport", "CCrypto"]
        ),
        .testTarget(
            name: "NotesCLITests",
            dependencies: ["notes-cli", "NotesCore", "NotesCommandLine", "NotesTestSupport"]
        ),
        .testTarget(
            name: "NotesCommandLineTests",
            dependencies: ["NotesCommandLine", "NotesTestSupport"]
        ),
    ]
)
