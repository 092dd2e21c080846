package graph

import "sort"

// implements rewrites the project's implements edges from its method sets: type T
// implements interface I when T is not I and every method of I (its id and signature) is in
// the method set of T (of *T, for a type that is not an interface). This is how gopls's
// implementation query decides it too, for package-level types. Only T of the project's own
// packages get edges; I may be an interface of a package the project imports.
func (w *Writer) implements() error {
	if _, err := w.tx.ExecContext(w.ctx, "DELETE FROM edges WHERE kind = 'implements' AND package_id IN (SELECT id FROM packages WHERE project_id = ?)", w.project); err != nil {
		return err
	}
	rows, err := w.tx.QueryContext(w.ctx,
		"SELECT package_id, type_id, is_interface, external, method, fingerprint FROM method_sets WHERE package_id IN (SELECT id FROM packages WHERE project_id = ?)", w.project)
	if err != nil {
		return err
	}
	type mset struct {
		pkg     int64
		iface   bool
		own     bool
		methods map[string]bool // method + " " + fingerprint
		keys    []string
	}
	sets := map[int64]*mset{}
	for rows.Next() {
		var pkg, typ int64
		var iface, external bool
		var method, fp string
		if err := rows.Scan(&pkg, &typ, &iface, &external, &method, &fp); err != nil {
			rows.Close()
			return err
		}
		m := sets[typ]
		if m == nil {
			m = &mset{iface: iface, methods: map[string]bool{}}
			sets[typ] = m
		}
		if !external {
			m.own, m.pkg = true, pkg
		}
		key := method + " " + fp
		if !m.methods[key] {
			m.methods[key] = true
			m.keys = append(m.keys, key)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Which of the project's types have each method: the candidates for an interface are
	// the types that have its rarest method.
	having := map[string][]int64{}
	for typ, m := range sets {
		if m.own {
			for _, k := range m.keys {
				having[k] = append(having[k], typ)
			}
		}
	}
	ifaces := make([]int64, 0, len(sets))
	for typ, m := range sets {
		if m.iface && len(m.keys) > 0 {
			ifaces = append(ifaces, typ)
		}
	}
	sort.Slice(ifaces, func(i, j int) bool { return ifaces[i] < ifaces[j] })
	for _, i := range ifaces {
		im := sets[i]
		rarest := im.keys[0]
		for _, k := range im.keys[1:] {
			if len(having[k]) < len(having[rarest]) {
				rarest = k
			}
		}
	candidates:
		for _, t := range having[rarest] {
			if t == i {
				continue
			}
			tm := sets[t]
			for _, k := range im.keys {
				if !tm.methods[k] {
					continue candidates
				}
			}
			if err := w.edges.add(w.project, tm.pkg, "implements", t, i, nil, nil, nil, "typed"); err != nil {
				return err
			}
		}
	}
	return w.edges.flush()
}
