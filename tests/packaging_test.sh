#!/usr/bin/env bash
# Packaging and desktop integration, end to end: install into a prefix, validate the desktop entry, AppStream
# metadata and man pages, check file-type detection and the default application with xdg-mime in an isolated
# home, build the .deb, check its contents and dependencies, and run the binaries unpacked from it.
# usage: packaging_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$1 src=$2 version=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in desktop-file-validate appstreamcli update-mime-database update-desktop-database xdg-mime dpkg-deb cpack; do
  command -v "$tool" >/dev/null || fail "missing $tool (run packaging/install-deps.sh)"
done

echo "== install into a prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
app_id=io.github.kinetoscope.Kinetoscope
for f in bin/kinetoscope bin/kinetoscope-cli share/applications/$app_id.desktop share/metainfo/$app_id.metainfo.xml \
         share/mime/packages/kinetoscope.xml share/icons/hicolor/scalable/apps/$app_id.svg \
         share/icons/hicolor/48x48/apps/$app_id.png share/icons/hicolor/256x256/apps/$app_id.png \
         share/man/man1/kinetoscope.1 share/man/man1/kinetoscope-cli.1 share/man/man1/kinetoscope-fake-cuda.1 \
         bin/kinetoscope-fake-cuda; do
  [[ -s "$work/prefix/$f" ]] || fail "not installed: $f"
done
[[ -n $(find "$work/prefix" -path '*/kinetoscope/libkinetoscope-agent.so') ]] || fail "capture agent not installed"
file "$work/prefix/share/icons/hicolor/48x48/apps/$app_id.png" | grep -q "48 x 48" || fail "48x48 icon has the wrong size"

echo "== validate desktop entry, AppStream metadata, man pages"
desktop-file-validate "$work/prefix/share/applications/$app_id.desktop"
appstreamcli validate --no-net "$work/prefix/share/metainfo/$app_id.metainfo.xml"
for m in kinetoscope kinetoscope-cli kinetoscope-fake-cuda; do
  head -1 "$work/prefix/share/man/man1/$m.1" | grep -q '^\.TH' || fail "$m.1 is not a man page"
  if command -v groff >/dev/null; then groff -man -Tutf8 -ww -z "$work/prefix/share/man/man1/$m.1" || fail "$m.1 has troff errors"; fi
done

echo "== file types and the default application (xdg-mime, isolated home)"
home="$work/home"
data="$home/.local/share"
mkdir -p "$data" "$work/files"
cp -r "$work/prefix/share/mime" "$work/prefix/share/applications" "$data/"
update-mime-database "$data/mime" 2>/dev/null
update-desktop-database "$data/applications"
sample="$src/resources/samples/sample.pt.trace.json"
cp "$sample" "$work/files/run.pt.trace.json"
cp "$sample" "$work/files/compiled_module_profile.json"
cp "$sample" "$work/files/renamed.json"            # no trace suffix: found by the "traceEvents" content match
gzip -c "$sample" > "$work/files/run.pt.trace.json.gz"
echo '{"not": "a trace"}' > "$work/files/config.json"
# A memory snapshot as torch.cuda.memory._dump_snapshot pickles it (its first key "segments"), under a name that
# says nothing, so that its content decides.
/usr/bin/python3 -c 'import pickle, sys; sys.stdout.buffer.write(pickle.dumps({"segments": [], "device_traces": [[]]}, 4))' \
  > "$work/files/oom_dump.pickle"
cp "$work/files/oom_dump.pickle" "$work/files/gpu_memory_snapshot.pickle"
gzip -c "$work/files/oom_dump.pickle" > "$work/files/memory_snapshot.pickle.gz"
# A Perfetto trace (its first packet's tag and length) and a ROCm database, by their names.
printf '\x0a\x00' > "$work/files/run.pftrace"
cp "$work/files/run.pftrace" "$work/files/run.perfetto-trace"
gzip -c "$work/files/run.pftrace" > "$work/files/run.pftrace.gz"
printf 'SQLite format 3\000' > "$work/files/matmul.rpd"
# A saved view (File > Save View), by its name and by its content.
printf '{"kinetoscope_view": 1, "files": ["run.pt.trace.json"]}\n' > "$work/files/bottleneck.kview"
export HOME="$home" XDG_DATA_HOME="$data" XDG_CONFIG_HOME="$home/.config" XDG_DATA_DIRS=/usr/share XDG_CURRENT_DESKTOP=
expect_type() {
  local got; got=$(xdg-mime query filetype "$work/files/$1")
  [[ "$got" == "$2" ]] || fail "xdg-mime query filetype $1: '$got', expected '$2'"
  echo "  $1: $got"
}
expect_type run.pt.trace.json application/x-pytorch-trace
expect_type compiled_module_profile.json application/x-pytorch-trace
expect_type renamed.json application/x-pytorch-trace
expect_type run.pt.trace.json.gz application/x-pytorch-trace-gzip
expect_type config.json application/json
expect_type oom_dump.pickle application/x-pytorch-memory-snapshot
expect_type gpu_memory_snapshot.pickle application/x-pytorch-memory-snapshot
expect_type memory_snapshot.pickle.gz application/x-pytorch-memory-snapshot-gzip
expect_type run.pftrace application/x-perfetto-trace
expect_type run.perfetto-trace application/x-perfetto-trace
expect_type run.pftrace.gz application/x-perfetto-trace-gzip
expect_type matmul.rpd application/x-rocm-profile-data
expect_type bottleneck.kview application/x-kinetoscope-view
for type in application/x-pytorch-trace application/x-pytorch-trace-gzip application/x-pytorch-memory-snapshot \
  application/x-pytorch-memory-snapshot-gzip application/x-perfetto-trace application/x-perfetto-trace-gzip \
  application/x-rocm-profile-data application/x-kinetoscope-view x-scheme-handler/kinetoscope; do
  got=$(xdg-mime query default "$type")
  [[ "$got" == "$app_id.desktop" ]] || fail "xdg-mime query default $type: '$got'"
  echo "  default for $type: $got"
done

echo "== Debian package"
(cd "$build" && cpack -G DEB -B "$work/deb" >/dev/null)
deb="$work/deb/kinetoscope_${version}_amd64.deb"
[[ -s "$deb" ]] || fail "no $deb"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/kinetoscope ./usr/bin/kinetoscope-cli ./usr/share/applications/$app_id.desktop \
         ./usr/share/mime/packages/kinetoscope.xml ./usr/share/metainfo/$app_id.metainfo.xml \
         ./usr/share/icons/hicolor/scalable/apps/$app_id.svg ./usr/share/man/man1/kinetoscope.1; do
  grep -qF " $f" <<<"$contents" || fail "$f missing from the package"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libqt6widgets6 libqt6gui6 libqt6core6 libsimdjson libdeflate0 zlib1g libqt6svg6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
echo "  Depends: $depends"

echo "== run what the package installs"
dpkg-deb -x "$deb" "$work/root"
"$work/root/usr/bin/kinetoscope-cli" info "$sample" >/dev/null
"$work/root/usr/bin/kinetoscope" --render "$work/shot.png" --size 800x400 "$sample"
file "$work/shot.png" | grep -q "800 x 400" || fail "rendered image has the wrong size"
"$work/root/usr/bin/kinetoscope" --version | grep -q "$version" || fail "--version does not say $version"
# import kinetoscope from the package, with Debian's python3 (a sanitizer build has no module: python/CMakeLists.txt).
if ! compgen -G "$build/python/kinetoscope/_kinetoscope*.so" >/dev/null; then
  echo "  (this build has no Python module: not checked)"
elif [[ -d "$work/root/usr/lib/python3/dist-packages/kinetoscope" ]]; then
  PYTHONPATH="$work/root/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import kinetoscope, sys; t = kinetoscope.load(sys.argv[1], progress=False); assert len(t.kernels()) > 0" \
    "$sample" || fail "import kinetoscope from the package failed"
  # render() finds the viewer installed beside it (usr/bin of wherever the package is unpacked), not the build's.
  PYTHONPATH="$work/root/usr/lib/python3/dist-packages" /usr/bin/python3 -c "if True:
    import kinetoscope, sys
    assert kinetoscope._viewer() == sys.argv[2], kinetoscope._viewer()
    assert kinetoscope.load(sys.argv[1], progress=False).render(size=(400, 200)).size == (400, 200)" \
    "$sample" "$work/root/usr/bin/kinetoscope" || fail "render() from the package failed"
else
  fail "the Python module is missing from the package"
fi
# Live capture from the package: the CLI finds the installed agent, which replays into the installed fake CUDA.
[[ -n $(find "$work/root/usr" -path "*/kinetoscope/libkinetoscope-agent.so") ]] || fail "agent missing from the package"
PATH="$work/root/usr/bin:$PATH" "$work/root/usr/bin/kinetoscope-cli" record -o "$work/capture.json" --replay "$sample" \
  --speed 0 -- kinetoscope-fake-cuda 2>"$work/record.log" || { cat "$work/record.log"; fail "record from the package"; }
grep -q " 0 dropped" "$work/record.log" || fail "record: $(cat "$work/record.log")"
"$work/root/usr/bin/kinetoscope-cli" info "$work/capture.json" | grep -q "launch->GPU" || fail "recorded trace has no launch flows"
echo "OK"
