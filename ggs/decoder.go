package ggs

// messageDecoder decodes bus messages one after another, reusing its scratch space:
// reportScan's single pass, and where it stops, the reference decodeEnvelope, which
// words every error. It is not safe for concurrent use.
type messageDecoder struct {
	scan reportScan
}

func (d *messageDecoder) decode(line []byte) (Message, error) {
	m, ok := d.scan.message(line)
	d.scan.b = nil // hold no line between calls
	d.scan.sh.done()
	if ok && m.check() == nil {
		return m, nil
	}
	return decodeEnvelope(line)
}
