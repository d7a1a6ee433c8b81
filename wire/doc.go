// Package wire provides the master server's wire formats: it turns request
// bytes into owned, typed values and typed replies into the exact bytes of
// PHP's serialize().
//
// # Replies
//
// Marshal and AppendMarshal write Go values as PHP would serialize the
// matching PHP values:
//
//	nil, nil pointer or interface     N;
//	bool                              b:0; b:1;
//	int and uint kinds                i:<n>;   (uint above MaxInt64 is an error)
//	string, []byte                    s:<byte length>:"<bytes>";
//	float32, float64                  d:<x>;   as PHP 8 with serialize_precision=-1
//	pointer                           the value it points to
//	slice, array                      a:<n>:{i:0;...i:1;...}  (nil slice: a:0:{})
//	map[string|int kind]V             a:<n>:{...} keys sorted, see below
//	struct                            a:<n>:{...} exported fields in order
//	*Array                            a:<n>:{...} in insertion order
//	Marshaler                         whatever AppendPHP writes
//
// A struct field is written under the key of its tag, php:"key"; php:"-"
// skips it and php:"key,omitempty" skips zero values. An exported field
// without a tag is an error, so every wire name is written down once, next
// to its field. Embedded structs without a tag are flattened in place;
// embedding Extras appends the two trailing entries most replies carry.
//
// Keys follow PHP's rule: a string key that is a canonical decimal int64
// ("7", "-5", but not "07", "-0" or "+1") is an integer key, whether it
// comes from a tag, an Array key or a map key. Map entries are sorted so
// that replies are reproducible: integer keys ascending, then string keys
// bytewise. Use *Array where the order matters.
//
// # Decoding serialized values
//
// Unmarshal reads what serialize() writes into nil, bool, int64, float64,
// string and *Array values; it is meant for tests, tools and load testers
// reading replies, and is strict about its input.
//
// # Requests
//
// ReadRequest copies a fasthttp request (query, url-encoded or multipart
// body, uploaded files) into a Request within Limits; fasthttp reuses its
// buffers after the handler returns, so nothing in a Request points into
// them. Request.Decode then fills a struct from form:"name" tags.
//
// Multipart bodies are parsed from the body bytes in memory, accepting
// close to what Go's mime/multipart accepts; parseMultipart's comment
// (multipart.go) lists the differences (quoted-printable parts kept as sent,
// as PHP keeps them, among them) and says exactly what is refused.
//
// # Statistics forms
//
// A game server's match statistics are a url-encoded form of several
// thousand PHP bracket names (player_stats[<key>][<hero>][<field>] and the
// like). ParseStatsForm decodes such a body, and DecodeStatsForm a
// Request's Form, into an owned StatsForm within StatsFormLimits (values,
// bytes, bracket depth, name length); what does not fit, or is not plain
// UTF-8 with balanced brackets of the known shapes, is a *FormLimitError
// whose Reason is fit for a metric label (statsform.go).
//
// # Example
//
//	type preAuthReply struct {
//		Salt  string `php:"salt"`
//		Salt2 string `php:"salt2"`
//		B     string `php:"B"`
//		wire.Extras
//	}
//
//	func preAuth(ctx *fasthttp.RequestCtx) {
//		req, err := wire.ReadRequest(ctx, wire.DefaultLimits)
//		if err != nil { ... }
//		var in struct {
//			Login string `form:"login,required,nonempty"`
//			A     string `form:"A,required,nonempty"`
//		}
//		if err := req.Decode(&in); err != nil { ... }
//		body, err := wire.Marshal(preAuthReply{Salt: s, Salt2: s2, B: b})
//		...
//		ctx.SetBody(body)
//	}
//
// which writes
//
//	a:5:{s:4:"salt";s:512:"...";s:5:"salt2";s:22:"...";s:1:"B";s:512:"...";s:16:"vested_threshold";i:5;i:0;b:1;}
package wire
