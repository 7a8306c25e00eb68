package nexmark

import "strconv"

// AppendJSON appends e as Flink's json format writes a row of the public
// connector's schema (Schema, as ddl_kafka.sql declares it) with its
// default options: one object with event_type, person, auction and bid
// in that order, the two rows the event does not use as null, times as
// 'yyyy-MM-dd HH:mm:ss[.SSS]' (no trailing zeros in the fraction), and
// strings escaped as Jackson does.
func AppendJSON(dst []byte, e *Event) []byte {
	dst = append(dst, `{"event_type":`...)
	dst = strconv.AppendInt(dst, int64(e.Type), 10)
	switch e.Type {
	case PersonEvent:
		p := &e.Person
		dst = append(dst, `,"person":{"id":`...)
		dst = strconv.AppendInt(dst, p.ID, 10)
		dst = appendField(dst, `,"name":`, p.Name)
		dst = appendField(dst, `,"emailAddress":`, p.EmailAddress)
		dst = appendField(dst, `,"creditCard":`, p.CreditCard)
		dst = appendField(dst, `,"city":`, p.City)
		dst = appendField(dst, `,"state":`, p.State)
		dst = append(dst, `,"dateTime":`...)
		dst = appendTimestamp(dst, p.DateTime)
		dst = appendField(dst, `,"extra":`, p.Extra)
		return append(dst, `},"auction":null,"bid":null}`...)
	case AuctionEvent:
		a := &e.Auction
		dst = append(dst, `,"person":null,"auction":{"id":`...)
		dst = strconv.AppendInt(dst, a.ID, 10)
		dst = appendField(dst, `,"itemName":`, a.ItemName)
		dst = appendField(dst, `,"description":`, a.Description)
		dst = append(dst, `,"initialBid":`...)
		dst = strconv.AppendInt(dst, a.InitialBid, 10)
		dst = append(dst, `,"reserve":`...)
		dst = strconv.AppendInt(dst, a.Reserve, 10)
		dst = append(dst, `,"dateTime":`...)
		dst = appendTimestamp(dst, a.DateTime)
		dst = append(dst, `,"expires":`...)
		dst = appendTimestamp(dst, a.Expires)
		dst = append(dst, `,"seller":`...)
		dst = strconv.AppendInt(dst, a.Seller, 10)
		dst = append(dst, `,"category":`...)
		dst = strconv.AppendInt(dst, a.Category, 10)
		dst = appendField(dst, `,"extra":`, a.Extra)
		return append(dst, `},"bid":null}`...)
	}
	b := &e.Bid
	dst = append(dst, `,"person":null,"auction":null,"bid":{"auction":`...)
	dst = strconv.AppendInt(dst, b.Auction, 10)
	dst = append(dst, `,"bidder":`...)
	dst = strconv.AppendInt(dst, b.Bidder, 10)
	dst = append(dst, `,"price":`...)
	dst = strconv.AppendInt(dst, b.Price, 10)
	dst = appendField(dst, `,"channel":`, b.Channel)
	dst = appendField(dst, `,"url":`, b.URL)
	dst = append(dst, `,"dateTime":`...)
	dst = appendTimestamp(dst, b.DateTime)
	dst = appendField(dst, `,"extra":`, b.Extra)
	return append(dst, `}}`...)
}

func appendField(dst []byte, key, s string) []byte {
	dst = append(dst, key...)
	return appendJSONString(dst, s)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as Jackson escapes:
// quote and backslash, control characters as \b \t \n \f \r or \u00XX;
// everything else as is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendTimestamp appends a TIMESTAMP(3) of ms milliseconds since the
// epoch as Flink's json format writes it ('json.timestamp-format.standard'
// = 'SQL'): "yyyy-MM-dd HH:mm:ss", then the milliseconds without trailing
// zeros, if any.
func appendTimestamp(dst []byte, ms int64) []byte {
	days := floorDiv(ms, 86400000)
	msOfDay := ms - days*86400000
	y, m, d := civil(days)
	dst = append(dst, '"')
	if y < 0 || y > 9999 {
		// Outside what the generator produces; written as Java's
		// LocalDateTime prints such years would need more care.
		dst = strconv.AppendInt(dst, y, 10)
	} else {
		dst = append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	sec := msOfDay / 1000
	frac := msOfDay % 1000
	dst = append(dst, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10),
		' ', byte('0'+sec/36000), byte('0'+sec/3600%10), ':', byte('0'+sec/600%6), byte('0'+sec/60%10),
		':', byte('0'+sec%60/10), byte('0'+sec%10))
	if frac != 0 {
		dst = append(dst, '.', byte('0'+frac/100))
		if frac%100 != 0 {
			dst = append(dst, byte('0'+frac/10%10))
			if frac%10 != 0 {
				dst = append(dst, byte('0'+frac%10))
			}
		}
	}
	return append(dst, '"')
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// civil returns the proleptic Gregorian date of a day number (days since
// 1970-01-01), by Howard Hinnant's civil_from_days.
func civil(days int64) (y, m, d int64) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
