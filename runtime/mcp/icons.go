package mcp

import "github.com/mcpgen/mcpgen/runtime/jsonwire"

// An Icon is an image a client may show beside a server (Implementation), a tool, a
// resource, a resource template or a prompt. Icons are sent to clients of revision
// 2025-11-25 and later; older revisions have no place for them.
type Icon struct {
	// Src is where the image is: an https: URL, or a data: URI with the image in base64.
	// Clients are told to fetch icons only from the server's domain or one they trust.
	Src string
	// MIMEType overrides the type the source gives, if it gives none or a generic one:
	// "image/png", "image/jpeg", "image/svg+xml", "image/webp".
	MIMEType string
	// Sizes are the sizes the image suits, each "WxH" ("48x48") or "any" (a scalable
	// image); none means any size.
	Sizes []string
	// Theme is the background the icon is drawn for: IconLight or IconDark; "" means any.
	Theme string
}

// The themes of an Icon.
const (
	IconLight = "light"
	IconDark  = "dark"
)

// writeIcons writes the icons member of a listed item or an Implementation, for a dialect
// that has it.
func writeIcons(e *jsonwire.Encoder, d dialect, icons []Icon) {
	if len(icons) == 0 || !d.icons() {
		return
	}
	e.Key("icons")
	e.ArrayStart()
	for _, ic := range icons {
		e.Elem()
		e.ObjectStart()
		e.Key("src")
		e.String(ic.Src)
		optionalString(e, "mimeType", ic.MIMEType)
		if len(ic.Sizes) > 0 {
			e.Key("sizes")
			e.ArrayStart()
			for _, s := range ic.Sizes {
				e.Elem()
				e.String(s)
			}
			e.ArrayEnd()
		}
		optionalString(e, "theme", ic.Theme)
		e.ObjectEnd()
	}
	e.ArrayEnd()
}

// readIcons reads an icons member: null reads as none; a null icon, or one without a src,
// is left out, as one a client could not show.
func readIcons(d *jsonwire.Decoder) []Icon {
	if d.Null() {
		return nil
	}
	var icons []Icon
	for range d.Elements {
		if d.Null() {
			continue
		}
		var ic Icon
		for key := range d.Members {
			switch string(key) {
			case "src":
				ic.Src = readString(d)
			case "mimeType":
				ic.MIMEType = readString(d)
			case "sizes":
				if d.Null() {
					continue
				}
				for range d.Elements {
					if s := readString(d); s != "" {
						ic.Sizes = append(ic.Sizes, s)
					}
				}
			case "theme":
				ic.Theme = readString(d)
			default:
				d.Skip()
			}
		}
		if ic.Src != "" {
			icons = append(icons, ic)
		}
	}
	return icons
}
