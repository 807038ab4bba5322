import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GitHub's cmark-gfm, loaded beside libcmark: the only owner of its library handles and of the
/// C functions bound from them.
///
/// cmark-gfm exports the same `cmark_*` names as libcmark, which NotesCore links for pure
/// CommonMark, so the two cannot both be linked, nor their headers imported into one Swift
/// module. cmark-gfm is therefore opened at run time with `RTLD_LOCAL | RTLD_DEEPBIND`: its
/// own calls bind to its own symbols, the process's `cmark_*` names stay libcmark's, and every
/// function used here is bound through `dlsym` on its handle to a Swift function-pointer type
/// written from `cmark-gfm.h` (Debian `libcmark-gfm-dev`, 0.29.0.gfm.6). See docs/rendering.md.
///
/// Loaded once per process (`shared`) and never closed: the functions stay valid for the life
/// of the process. cmark-gfm is not re-entrant: while a parser processes inlines, it adds its
/// extensions' characters to a global table and removes them after, so two parses at once on
/// two threads corrupt each other (and crash). Every use of a tree therefore runs inside
/// `exclusively`, one at a time per process.
///
/// Trees live in cmark-gfm's arena allocator, as its own CLI keeps them: a node costs a bump of
/// a pointer instead of a `malloc`, and freeing a tree is nothing, so `exclusively` gives all
/// the memory its trees used back at once when it ends (`cmark_arena_pop`). Rendered HTML is
/// allocated with the default allocator, so it can outlive the arena until `release`.
///
/// `@unchecked Sendable`: every field is an immutable C function pointer (or a string) set once
/// in `init`; the trees those functions work on are owned by `GFMDocument`, which never crosses threads.
final class CmarkGFM: @unchecked Sendable {
    typealias Node = OpaquePointer
    typealias Parser = OpaquePointer

    /// Serialises every parse, pass and render: see above.
    private let lock = Mutex(())

    /// Runs `body`, which parses, changes and renders cmark-gfm trees, while no other thread
    /// does. A tree made in `body` must not outlive it.
    func exclusively<Value: Sendable, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        try lock.withLock { (_: inout Void) throws(Failure) -> Value in
            // Everything the arena hands out from here on is freed when `body` ends.
            arenaPush()
            defer { _ = arenaPop() }
            return try body()
        }
    }

    /// The library, loaded on first use; the failure when this machine lacks it.
    static let shared: Result<CmarkGFM, CmarkGFMError> = Result { () throws(CmarkGFMError) -> CmarkGFM in try CmarkGFM() }

    /// The shared objects, by their Debian soname (the package names them with the full version).
    static let coreLibrary = "libcmark-gfm.so.0.29.0.gfm.6"
    static let extensionsLibrary = "libcmark-gfm-extensions.so.0.29.0.gfm.6"

    // Function pointers bound from the handles. Plain C functions: immutable, safe from any thread.
    let parserNew: @convention(c) (Int32, UnsafeRawPointer) -> Parser?
    let parserFeed: @convention(c) (Parser, UnsafePointer<CChar>, Int) -> Void
    let parserFinish: @convention(c) (Parser) -> Node?
    let parserAttachSyntaxExtension: @convention(c) (Parser, OpaquePointer) -> Int32
    let parserGetSyntaxExtensions: @convention(c) (Parser) -> OpaquePointer?
    let findSyntaxExtension: @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    let renderHTML: @convention(c) (Node, Int32, OpaquePointer?, UnsafeRawPointer) -> UnsafeMutablePointer<CChar>?
    /// Makes a node in `arena`: a tree takes only nodes of its own allocator.
    let nodeNewWithMem: @convention(c) (UInt32, UnsafeRawPointer) -> Node?
    let nodeFree: @convention(c) (Node) -> Void
    let nodeGetType: @convention(c) (Node) -> UInt32
    let nodeGetTypeString: @convention(c) (Node) -> UnsafePointer<CChar>?
    let nodeGetLiteral: @convention(c) (Node) -> UnsafePointer<CChar>?
    let nodeSetLiteral: @convention(c) (Node, UnsafePointer<CChar>) -> Int32
    let nodeGetURL: @convention(c) (Node) -> UnsafePointer<CChar>?
    let nodeSetURL: @convention(c) (Node, UnsafePointer<CChar>) -> Int32
    let nodeGetFenceInfo: @convention(c) (Node) -> UnsafePointer<CChar>?
    let nodeGetHeadingLevel: @convention(c) (Node) -> Int32
    let nodeSetOnEnter: @convention(c) (Node, UnsafePointer<CChar>) -> Int32
    let nodeSetOnExit: @convention(c) (Node, UnsafePointer<CChar>) -> Int32
    let nodeFirstChild: @convention(c) (Node) -> Node?
    let nodeNext: @convention(c) (Node) -> Node?
    let nodeParent: @convention(c) (Node) -> Node?
    let nodeInsertBefore: @convention(c) (Node, Node) -> Int32
    let nodeAppendChild: @convention(c) (Node, Node) -> Int32
    let nodeUnlink: @convention(c) (Node) -> Void
    let consolidateTextNodes: @convention(c) (Node) -> Void
    let iterNew: @convention(c) (Node) -> OpaquePointer?
    let iterNext: @convention(c) (OpaquePointer) -> UInt32
    let iterGetNode: @convention(c) (OpaquePointer) -> Node?
    let iterFree: @convention(c) (OpaquePointer) -> Void
    let nodeGetStartLine: @convention(c) (Node) -> Int32
    let nodeGetStartColumn: @convention(c) (Node) -> Int32
    let nodeGetSyntaxExtension: @convention(c) (Node) -> OpaquePointer?
    let nodeSetSyntaxExtension: @convention(c) (Node, OpaquePointer?) -> Int32
    let nodeGetUserData: @convention(c) (Node) -> UnsafeMutableRawPointer?
    let nodeSetUserData: @convention(c) (Node, UnsafeMutableRawPointer?) -> Int32
    /// Whether a task list item is ticked (from the extensions library).
    let tasklistItemChecked: @convention(c) (Node) -> Bool
    let inlineParserGetOffset: @convention(c) (OpaquePointer) -> Int32
    let inlineParserSetOffset: @convention(c) (OpaquePointer, Int32) -> Void
    let inlineParserGetChunk: @convention(c) (OpaquePointer) -> UnsafeRawPointer?
    /// The `math` inline extension (`$…$`, `$$…$$`), made here once: see `CmarkGFM+Math.swift`.
    let mathExtension: OpaquePointer
    /// cmark-gfm's own `free`, from its default allocator: what it allocates is freed by it.
    private let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// cmark-gfm's default allocator (`cmark_mem *`), for rendered HTML.
    let defaultAllocator: UnsafeRawPointer
    /// cmark-gfm's arena allocator (`cmark_mem *`), for parsers and trees; see `exclusively`.
    let arena: UnsafeRawPointer
    private let arenaPush: @convention(c) () -> Void
    private let arenaPop: @convention(c) () -> Int32
    /// The version cmark-gfm reports, such as `0.29.0.gfm.6`.
    let version: String

    private init() throws(CmarkGFMError) {
        let flags = RTLD_NOW | RTLD_LOCAL | Int32(0x8)  // 0x8: RTLD_DEEPBIND (glibc), not imported into Swift
        // The extensions first: opening it brings in its own libcmark-gfm inside the same
        // deep-bound scope, so neither ever binds to libcmark's `cmark_*`.
        guard let extensions = dlopen(Self.extensionsLibrary, flags) else { throw .notLoaded(Self.lastError()) }
        guard let core = dlopen(Self.coreLibrary, flags | RTLD_NOLOAD) else { throw .notLoaded(Self.lastError()) }

        func bind<Function>(_ name: String, from handle: UnsafeMutableRawPointer = core, as _: Function.Type) throws(CmarkGFMError) -> Function {
            guard let symbol = dlsym(handle, name) else { throw .missingSymbol(name) }
            return unsafeBitCast(symbol, to: Function.self)
        }
        parserNew = try bind("cmark_parser_new_with_mem", as: (@convention(c) (Int32, UnsafeRawPointer) -> Parser?).self)
        parserFeed = try bind("cmark_parser_feed", as: (@convention(c) (Parser, UnsafePointer<CChar>, Int) -> Void).self)
        parserFinish = try bind("cmark_parser_finish", as: (@convention(c) (Parser) -> Node?).self)
        parserAttachSyntaxExtension = try bind("cmark_parser_attach_syntax_extension", as: (@convention(c) (Parser, OpaquePointer) -> Int32).self)
        parserGetSyntaxExtensions = try bind("cmark_parser_get_syntax_extensions", as: (@convention(c) (Parser) -> OpaquePointer?).self)
        findSyntaxExtension = try bind("cmark_find_syntax_extension", as: (@convention(c) (UnsafePointer<CChar>) -> OpaquePointer?).self)
        renderHTML = try bind("cmark_render_html_with_mem",
                              as: (@convention(c) (Node, Int32, OpaquePointer?, UnsafeRawPointer) -> UnsafeMutablePointer<CChar>?).self)
        nodeNewWithMem = try bind("cmark_node_new_with_mem", as: (@convention(c) (UInt32, UnsafeRawPointer) -> Node?).self)
        nodeFree = try bind("cmark_node_free", as: (@convention(c) (Node) -> Void).self)
        nodeGetType = try bind("cmark_node_get_type", as: (@convention(c) (Node) -> UInt32).self)
        nodeGetTypeString = try bind("cmark_node_get_type_string", as: (@convention(c) (Node) -> UnsafePointer<CChar>?).self)
        nodeGetLiteral = try bind("cmark_node_get_literal", as: (@convention(c) (Node) -> UnsafePointer<CChar>?).self)
        nodeSetLiteral = try bind("cmark_node_set_literal", as: (@convention(c) (Node, UnsafePointer<CChar>) -> Int32).self)
        nodeGetURL = try bind("cmark_node_get_url", as: (@convention(c) (Node) -> UnsafePointer<CChar>?).self)
        nodeSetURL = try bind("cmark_node_set_url", as: (@convention(c) (Node, UnsafePointer<CChar>) -> Int32).self)
        nodeGetFenceInfo = try bind("cmark_node_get_fence_info", as: (@convention(c) (Node) -> UnsafePointer<CChar>?).self)
        nodeGetHeadingLevel = try bind("cmark_node_get_heading_level", as: (@convention(c) (Node) -> Int32).self)
        nodeSetOnEnter = try bind("cmark_node_set_on_enter", as: (@convention(c) (Node, UnsafePointer<CChar>) -> Int32).self)
        nodeSetOnExit = try bind("cmark_node_set_on_exit", as: (@convention(c) (Node, UnsafePointer<CChar>) -> Int32).self)
        nodeFirstChild = try bind("cmark_node_first_child", as: (@convention(c) (Node) -> Node?).self)
        nodeNext = try bind("cmark_node_next", as: (@convention(c) (Node) -> Node?).self)
        nodeParent = try bind("cmark_node_parent", as: (@convention(c) (Node) -> Node?).self)
        nodeInsertBefore = try bind("cmark_node_insert_before", as: (@convention(c) (Node, Node) -> Int32).self)
        nodeAppendChild = try bind("cmark_node_append_child", as: (@convention(c) (Node, Node) -> Int32).self)
        nodeUnlink = try bind("cmark_node_unlink", as: (@convention(c) (Node) -> Void).self)
        consolidateTextNodes = try bind("cmark_consolidate_text_nodes", as: (@convention(c) (Node) -> Void).self)
        iterNew = try bind("cmark_iter_new", as: (@convention(c) (Node) -> OpaquePointer?).self)
        iterNext = try bind("cmark_iter_next", as: (@convention(c) (OpaquePointer) -> UInt32).self)
        iterGetNode = try bind("cmark_iter_get_node", as: (@convention(c) (OpaquePointer) -> Node?).self)
        iterFree = try bind("cmark_iter_free", as: (@convention(c) (OpaquePointer) -> Void).self)
        nodeGetStartLine = try bind("cmark_node_get_start_line", as: (@convention(c) (Node) -> Int32).self)
        nodeGetStartColumn = try bind("cmark_node_get_start_column", as: (@convention(c) (Node) -> Int32).self)
        nodeGetSyntaxExtension = try bind("cmark_node_get_syntax_extension", as: (@convention(c) (Node) -> OpaquePointer?).self)
        nodeSetSyntaxExtension = try bind("cmark_node_set_syntax_extension", as: (@convention(c) (Node, OpaquePointer?) -> Int32).self)
        nodeGetUserData = try bind("cmark_node_get_user_data", as: (@convention(c) (Node) -> UnsafeMutableRawPointer?).self)
        nodeSetUserData = try bind("cmark_node_set_user_data", as: (@convention(c) (Node, UnsafeMutableRawPointer?) -> Int32).self)
        tasklistItemChecked = try bind("cmark_gfm_extensions_get_tasklist_item_checked", from: extensions,
                                       as: (@convention(c) (Node) -> Bool).self)
        inlineParserGetOffset = try bind("cmark_inline_parser_get_offset", as: (@convention(c) (OpaquePointer) -> Int32).self)
        inlineParserSetOffset = try bind("cmark_inline_parser_set_offset", as: (@convention(c) (OpaquePointer, Int32) -> Void).self)
        inlineParserGetChunk = try bind("cmark_inline_parser_get_chunk", as: (@convention(c) (OpaquePointer) -> UnsafeRawPointer?).self)

        let allocator = try bind("cmark_get_default_mem_allocator", as: (@convention(c) () -> UnsafeRawPointer?).self)
        // `cmark_mem` is { calloc, realloc, free }: three function pointers, `free` the third.
        guard let mem = allocator() else { throw .missingSymbol("cmark_get_default_mem_allocator()") }
        free = mem.load(fromByteOffset: 2 * MemoryLayout<UnsafeRawPointer>.stride,
                        as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        defaultAllocator = mem
        let arenaAllocator = try bind("cmark_get_arena_mem_allocator", as: (@convention(c) () -> UnsafeRawPointer?).self)
        guard let arena = arenaAllocator() else { throw .missingSymbol("cmark_get_arena_mem_allocator()") }
        self.arena = arena
        arenaPush = try bind("cmark_arena_push", as: (@convention(c) () -> Void).self)
        arenaPop = try bind("cmark_arena_pop", as: (@convention(c) () -> Int32).self)
        // `cmark_arena_push` marks the arena's current block, and does nothing before the arena's
        // first allocation: one byte now makes that first block, kept for the life of the process,
        // so every `exclusively` frees exactly what it used.
        let arenaCalloc = arena.load(as: (@convention(c) (Int, Int) -> UnsafeMutableRawPointer?).self)
        _ = arenaCalloc(1, 1)
        let versionString = try bind("cmark_version_string", as: (@convention(c) () -> UnsafePointer<CChar>?).self)
        version = versionString().map { String(cString: $0) } ?? ""

        let register = try bind("cmark_gfm_core_extensions_ensure_registered", from: extensions, as: (@convention(c) () -> Void).self)
        register()
        for name in Self.extensionNames where findSyntaxExtension(name) == nil { throw .missingExtension(name) }
        mathExtension = try Self.makeMathExtension(bind: { name throws(CmarkGFMError) in
            guard let symbol = dlsym(core, name) else { throw .missingSymbol(name) }
            return symbol
        })
    }

    /// The GFM extensions this library must register (tables, task lists, strikethrough,
    /// autolinks, the tag filter); footnotes are a parse option, not an extension.
    static let extensionNames = ["table", "tasklist", "strikethrough", "autolink", "tagfilter"]

    /// A new node of `type`, in the arena where every tree lives.
    func nodeNew(_ type: UInt32) -> Node? {
        nodeNewWithMem(type, arena)
    }

    /// Frees memory cmark-gfm allocated (rendered HTML), with its own allocator.
    func release(_ pointer: UnsafeMutableRawPointer?) {
        free(pointer)
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}
