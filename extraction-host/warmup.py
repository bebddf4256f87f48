"""The warm-up: the tools imported once in the host, one extraction run through, and what yt-dlp
repeats in every run with the same result done before the fork (a TLS context, the extractors'
choice by name, the answer of the extractors that find no embeds). Each patch falls back to yt-dlp's
own code where yt-dlp's internals differ. What changes on disk after it (stamp()) makes the host stale.
"""
import gc
import os
import ssl
import sys
import zipfile

TOOLS = ("yt-dlp", "gallery-dl")
EXTRACTORS = []  # (key, class) in the order yt-dlp's default YoutubeDL() asks them, from the warm-up


def load_tools(program, gallery_dl):
    """The tools' modules (gallery-dl's when wanted and importable); yt-dlp's program may be a zip of it."""
    if program and os.path.isfile(program) and zipfile.is_zipfile(program):
        sys.path.insert(0, program)
    loaded = {"yt-dlp": __import__("yt_dlp")}
    try:
        # The PO-token provider (pot.py) registers itself; a yt-dlp without the interface goes without it.
        __import__("pot")
    except ImportError:
        pass
    if gallery_dl:
        try:
            loaded["gallery-dl"] = __import__("gallery_dl")
        except ImportError:
            pass
    return loaded


def warm(modules):
    """Pays now what every first extraction would: every extractor loaded, its patterns compiled."""
    # One real extraction of a page runs the whole path of a page's extraction: each extractor's
    # URL pattern tried and its module imported, the generic extractor's scan for embeds (every
    # extractor's embed patterns), format sorting. The page is read from a pipe (nothing on disk,
    # no network); its video is never fetched.
    page, writer = os.pipe()
    os.write(writer, b'<html><head><title>warm</title></head><body><video src="https://warm.invalid/warm.mp4"></video></body></html>')
    os.close(writer)
    remember_extractor_choice()
    # Before the extraction, whose embed scan would otherwise read every extractor's class.
    skip_barren_embed_scans()
    options = {"quiet": True, "no_warnings": True, "enable_file_urls": True, "simulate": True}
    with modules["yt-dlp"].YoutubeDL(options) as ydl:
        # The extractors a job's YoutubeDL() asks in turn, for the chooser: built once, here.
        EXTRACTORS[:] = list(getattr(ydl, "_ies", {}).items())
        ydl.extract_info(f"file:///proc/self/fd/{page}", download=False)
    os.close(page)
    modules["yt-dlp"].parse_options(["-J", "--", "https://example.com/"])
    prebuild_tls_context()
    try:  # what yt-dlp's updater reads on every run (it runs `file` on the interpreter); cached per process
        modules["yt-dlp"].utils.system_identifier()
    except AttributeError:
        pass
    if "gallery-dl" in modules:
        import gallery_dl.extractor
        import gallery_dl.job
        import gallery_dl.option

        for _ in gallery_dl.extractor.extractors():
            pass
        gallery_dl.option.build_parser()
    # Objects from here on are never collected again: the children's collector then leaves the
    # warm pages alone, and they stay shared with the host.
    gc.freeze()


TLS = {"shared": False}


def prebuild_tls_context():
    """Builds now the TLS context yt-dlp's first connection in a child would build.

    yt-dlp makes a fresh verifying context for each request handler, and loading the CA bundle
    into it costs ~20 ms of CPU per job, on a plain-HTTP page too. The context built here is handed,
    once, to the first call in a child with yt-dlp's default arguments: each child gets its own copy
    by the fork, never used before, so no job sees another's. In a worker (TLS["shared"]) every such
    call gets the worker's one copy: a context holds settings and trusted roots, no session (Python
    keeps none in a client context), and jobs with cookies never run in a worker. Any other call,
    or a yt-dlp whose internals differ, runs yt-dlp's own code. The CA bundle is in stamp(): when it
    changes on disk, the host is stale and started again, so trust stays what yt-dlp would load.
    """
    try:
        from yt_dlp.networking import common
        build = common.make_ssl_context
    except (ImportError, AttributeError):
        return
    default = {"verify": True, "legacy_support": False, "use_certifi": True}
    spare = [build(**default)]

    def make_ssl_context(*args, **kwargs):
        if spare and not args and kwargs == default:
            return spare[0] if TLS["shared"] else spare.pop()
        return build(*args, **kwargs)

    common.make_ssl_context = make_ssl_context


def skip_barren_embed_scans():
    """Answers "no embeds" for the extractors that can find none, without loading their classes.

    On a page no extractor claims, the generic extractor asks every one of the ~1 750 for the
    embeds it finds there; with lazy extractors each asks its real class, so a child wrote to ~1 750
    class objects spread over the host's heap (~2 700 copied pages, ~10 MB per job). ~1 550 of them
    keep InfoExtractor's own embed methods and an empty _EMBED_REGEX: yt-dlp's answer is then an
    empty generator with no side effect, whatever the page. The host learns which once, and answers
    those alone itself; not once a job has loaded a plugin, which may change any class. Learning it
    reads every real class, which imports ~960 extractor modules: ~22 MB that the host would keep
    for good, and its forks share, when a job needs one of them (~1 ms to import in the job's
    process). So a forked process learns it and ends, and the host imports only the modules of the
    extractors that can find embeds (~180 of ~960), as its warm-up's embed scan reads them.
    """
    try:
        from yt_dlp.extractor import gen_extractor_classes
        from yt_dlp.extractor.common import InfoExtractor
        from yt_dlp.extractor.lazy_extractors import LazyLoadMetaClass
        from yt_dlp.globals import plugin_ies, plugin_ies_overrides, plugin_pps
    except ImportError:  # no lazy extractors (each call reads its class anyway), or other internals
        return
    names = ("extract_from_webpage", "_extract_from_webpage", "_extract_embed_urls")
    own = [getattr(InfoExtractor.__dict__.get(name), "__func__", None) for name in names]

    def barren(lazy):
        try:
            real = lazy.real_class
        except Exception:  # its module does not load: yt-dlp's own code says so in the job
            return False
        found = [getattr(getattr(real, name, None), "__func__", None) for name in names]
        embeds = getattr(real, "_EMBED_REGEX", None)
        return None not in own and found == own and isinstance(embeds, (list, tuple)) and not embeds

    lazies = [lazy for lazy in gen_extractor_classes() if isinstance(lazy, LazyLoadMetaClass)]
    skipped = frozenset(lazies[index] for index in learned_apart(lambda: [i for i, lazy in enumerate(lazies) if barren(lazy)]))
    lookup = LazyLoadMetaClass.__getattr__

    def no_embeds(ydl, url, webpage):
        yield from ()

    def __getattr__(cls, name):
        if name == "extract_from_webpage" and cls in skipped and not (plugin_ies.value or plugin_pps.value or any(plugin_ies_overrides.value.values())):
            return no_embeds
        return lookup(cls, name)

    LazyLoadMetaClass.__getattr__ = __getattr__


def learned_apart(learn):
    """The list of ints `learn()` gives, computed in a forked process so that what it loads is not
    kept here; [] when that process fails (then every class is read where it is needed, as before)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            with os.fdopen(write, "w") as answer:
                answer.write(",".join(map(str, learn())))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as answer:
        text = answer.read()
    _, status = os.waitpid(pid, 0)
    return [int(each) for each in text.split(",") if each] if os.waitstatus_to_exitcode(status) == 0 else []


def remember_extractor_choice():
    """Keeps the extractors YoutubeDL() picks by name, a pure function of its arguments.

    Every YoutubeDL() picks its ~1 800 extractors by name through orderedSet_from_options, whose
    de-duplication is quadratic: ~12 ms of CPU per job for the same answer every time. Answers
    computed in the host (the warm-up's YoutubeDL() asks what every job asks) are kept, and each
    caller gets its own copy of the list.
    """
    module = sys.modules.get("yt_dlp.YoutubeDL")
    compute = getattr(module, "orderedSet_from_options", None)
    if compute is None:
        return
    memo = {}

    def ordered_set_from_options(options, alias_dict, **kwargs):
        try:
            key = (tuple(options), tuple((name, tuple(values)) for name, values in alias_dict.items()), tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an argument that is not plain strings: not kept
            return compute(options, alias_dict, **kwargs)
        if key not in memo:
            memo[key] = compute(options, alias_dict, **kwargs)
        return list(memo[key])

    module.orderedSet_from_options = ordered_set_from_options


def ca_bundle():
    """The CA file yt-dlp loads into its TLS contexts: certifi's, else OpenSSL's default (None if none)."""
    try:
        from yt_dlp.dependencies import certifi
    except ImportError:
        certifi = None
    return certifi.where() if certifi else ssl.get_default_verify_paths().cafile


def stamp(modules):
    """What changes when a tool is updated on disk (its version file, or the zip it is read from),
    or the CA bundle the prebuilt TLS context holds."""
    def version_file(module):
        path = os.path.join(os.path.dirname(module.__file__), "version.py")
        while not os.path.exists(path):  # inside a zip: the zip file itself
            path = os.path.dirname(path)
        return path

    def signature(path):
        info = os.stat(path)
        return (path, info.st_mtime_ns, info.st_size)

    paths = [version_file(module) for module in modules.values()] + [path for path in [ca_bundle()] if path]
    try:
        return [signature(path) for path in paths]
    except OSError:
        return None


def versions(modules):
    found = dict.fromkeys(TOOLS)
    for tool, module in modules.items():
        found[tool] = module.version.__version__
    return found
