namespace geo {

class Square {
 public:
  double area() const;
  double scaled(double k) const { return k * this->area(); }
  double side;
};

// area is the square's area.
double Square::area() const { return side * side; }

double total(const Square& s) { return s.area() + Square().scaled(2); }

}  // namespace geo
