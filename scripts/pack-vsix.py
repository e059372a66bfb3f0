#!/usr/bin/env python3
"""Packs the VS Code extension for .uring (grammar/editors/vscode plus the TextMate grammar) into a
.vsix without network or vsce: a .vsix is a zip holding [Content_Types].xml, an
extension.vsixmanifest (the identity VS Code reads) and the extension's files under extension/.

    scripts/pack-vsix.py -o build/uring-0.1.0.vsix
    code --install-extension build/uring-0.1.0.vsix"""
import argparse
import json
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

EDITORS = Path(__file__).resolve().parent.parent / "grammar/editors"

CONTENT_TYPES = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension=".json" ContentType="application/json"/>
<Default Extension=".md" ContentType="text/markdown"/>
<Default Extension=".vsixmanifest" ContentType="text/xml"/>
</Types>
"""

MANIFEST = """<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id={name} Version={version} Publisher={publisher}/>
    <DisplayName>{display}</DisplayName>
    <Description xml:space="preserve">{description}</Description>
    <Tags>{tags}</Tags>
    <Categories>{categories}</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value={engine}/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionDependencies" Value=""/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionPack" Value=""/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace"/>
      <Property Id="Microsoft.VisualStudio.Code.LocalizedLanguages" Value=""/>
    </Properties>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>
  </Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
    <Asset Type="Microsoft.VisualStudio.Services.Content.Details" Path="extension/README.md" Addressable="true"/>
  </Assets>
</PackageManifest>
"""


def files(package: dict) -> dict[str, Path]:
    """Archive name -> source file: the extension folder, and each grammar package.json names."""
    out = {f"extension/{p.name}": p for p in sorted((EDITORS / "vscode").iterdir()) if p.is_file()}
    for g in package["contributes"]["grammars"]:
        name = Path(g["path"]).name
        out["extension/" + g["path"].removeprefix("./")] = EDITORS / name
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, type=Path, help="the .vsix to write")
    args = ap.parse_args()
    package = json.loads((EDITORS / "vscode/package.json").read_text())
    sources = files(package)
    missing = [str(p) for p in sources.values() if not p.is_file()]
    if missing:
        print(f"pack-vsix: missing {', '.join(missing)}", file=sys.stderr)
        return 1
    manifest = MANIFEST.format(
        name=quoteattr(package["name"]), version=quoteattr(package["version"]),
        publisher=quoteattr(package["publisher"]), display=escape(package["displayName"]),
        description=escape(package["description"]), tags=escape(",".join(package["keywords"])),
        categories=escape(",".join(package["categories"])),
        engine=quoteattr(package["engines"]["vscode"]))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(args.output, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("extension.vsixmanifest", manifest)
        for name, path in sources.items():
            z.write(path, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
