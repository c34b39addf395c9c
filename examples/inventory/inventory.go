// Package inventory keeps a product catalog and the stock of a warehouse in step.
package inventory

import "sync"

// Catalog maps product ids to names.
type Catalog struct {
	mu    sync.Mutex
	names map[string]string
}

// Warehouse counts the units of each product.
type Warehouse struct {
	mu    sync.Mutex
	stock map[string]int
}

// Store is a catalog and a warehouse.
type Store struct {
	Catalog   Catalog
	Warehouse Warehouse
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{Catalog: Catalog{names: map[string]string{}}, Warehouse: Warehouse{stock: map[string]int{}}}
}

// AddProduct lists a product with no stock: catalog first, then warehouse.
func (s *Store) AddProduct(id, name string) {
	s.Catalog.mu.Lock()
	defer s.Catalog.mu.Unlock()
	s.Catalog.names[id] = name
	s.Warehouse.mu.Lock() // related "cyclic-deadlock" "deadlock"
	s.Warehouse.stock[id] += 0
	s.Warehouse.mu.Unlock()
}

// Restock adds units of a product, listing it under a placeholder name if unknown.
//
// BUG: it takes the warehouse lock, then the catalog lock, the opposite order of
// AddProduct: one goroutine in each can deadlock.
func (s *Store) Restock(id string, units int) {
	s.Warehouse.mu.Lock()
	defer s.Warehouse.mu.Unlock()
	s.Warehouse.stock[id] += units
	s.Catalog.mu.Lock() // want "cyclic-deadlock" "deadlock"
	if _, ok := s.Catalog.names[id]; !ok {
		s.Catalog.names[id] = "unnamed " + id
	}
	s.Catalog.mu.Unlock()
}

// Units returns the stock of a product.
func (s *Store) Units(id string) int {
	s.Warehouse.mu.Lock()
	defer s.Warehouse.mu.Unlock()
	return s.Warehouse.stock[id]
}
